import type { TokenBucketRule } from '../storage/records.js';

/**
 * Press rate limits (docs/contract/device-api.md#press-rate-limits), as token buckets kept in the store so that every
 * instance counts against the same buckets:
 * - per phone and widget: a burst of 8, then 1 per second (60 per minute sustained);
 * - per owner account: a burst of 20 across all its widgets and phones, then 1 per second.
 */
export const DEVICE_WIDGET_BURST = 8;
export const ACCOUNT_BURST = 20;
export const REFILL_MS = 1_000;

export function pressRateRules(deviceId: string, owner: string, slug: string): TokenBucketRule[] {
  return [
    { key: `press:device:${JSON.stringify([deviceId, owner, slug])}`, capacity: DEVICE_WIDGET_BURST, refillMs: REFILL_MS },
    { key: `press:account:${owner}`, capacity: ACCOUNT_BURST, refillMs: REFILL_MS },
  ];
}
