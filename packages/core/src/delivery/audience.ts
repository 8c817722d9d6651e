import type { DeliveryResource } from '../storage/delivery-jobs.js';
import type { Storage } from '../storage/storage.js';

/**
 * The devices a resource's pushes go to, in the order a job walks them (ascending id, code
 * units; docs/contract/durable-delivery.md#durable-job-resume): an activity's go to its
 * account's devices; a widget's also to the devices it is shared with.
 */
export async function audienceOf(storage: Storage, resource: DeliveryResource): Promise<string[]> {
  if (resource.kind === 'activity') return storage.listAccountDeviceIds(resource.accountId);
  const [own, shared] = await Promise.all([storage.listAccountDeviceIds(resource.accountId), storage.listWidgetShares(resource.accountId, resource.slug)]);
  if (shared.length === 0) return own;
  return [...new Set([...own, ...shared])].sort(byCodeUnits);
}

/** The devices of `audience` after `cursor` (all of them for `''`). */
export function after(audience: readonly string[], cursor: string): readonly string[] {
  return cursor === '' ? audience : audience.slice(indexAbove(audience, cursor));
}

/**
 * The index of the first id of ascending `sorted` above `id` (with `orEqual`, at or above
 * it), by bisection; `sorted.length` when there is none.
 */
export function indexAbove(sorted: readonly string[], id: string, orEqual = false): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const item = sorted[middle]!;
    if (item > id || (orEqual && item === id)) high = middle;
    else low = middle + 1;
  }
  return low;
}

const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
