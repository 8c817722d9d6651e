import { purgeEvents } from './events.js';
import { purgeStreamSlots } from './stream-slots.js';
import { bucketIsFull } from './presses.js';
import { newExpiryOrder, type ExpiryOrder, type MemoryState } from './state.js';

/**
 * A window whose trailing push was never claimed (its instance went away) is dropped this
 * long after it ended; a live instance claims it at the window's end.
 */
export const ABANDONED_TRAILING_MS = 5 * 60_000;

/**
 * Deletes at most `batch` entries of `map` for which `expired` holds; returns how many.
 * A map known to be in expiry order is read only up to its first live entry.
 */
function purgeMap<V>(map: Map<string, V>, batch: number, expired: (value: V) => boolean, order?: ExpiryOrder): number {
  let removed = 0;
  for (const [key, value] of map) {
    if (removed >= batch) break;
    if (expired(value)) {
      map.delete(key);
      removed += 1;
    } else if (order?.sorted) {
      break; // every later entry expires no earlier than this live one
    }
  }
  if (order !== undefined && map.size === 0) Object.assign(order, newExpiryOrder());
  return removed;
}

/**
 * `purgeExpired`: removes expired events, press keys, event- and device-stream slots and delivery
 * claims (counted, as every store counts them), then frees state that is indistinguishable from absent
 * state (full token buckets, ended throttle windows; not counted), so memory stays bounded.
 */
export function purgeExpired(state: MemoryState, now: number, batch: number): number {
  const removed =
    purgeEvents(state, now, batch) +
    purgeMap(state.presses, batch, (press) => press.expiresAt <= now, state.pressOrder) +
    purgePressNotes(state, now, batch) +
    purgeStreamSlots(state.eventStreamSlots, now, batch) +
    purgeStreamSlots(state.deviceStreamSlots, now, batch) +
    purgeMap(state.claims, batch, (claim) => claim.expiresAt <= now, state.claimOrder);
  purgeMap(state.buckets, batch, (bucket) => bucketIsFull(bucket, now));
  purgeMap(state.throttle, batch, (window) => window.endsAt + (window.trailingPending ? ABANDONED_TRAILING_MS : 0) <= now);
  return removed;
}

/** Removes at most `batch` expired press notes, and widgets left without any. */
function purgePressNotes(state: MemoryState, now: number, batch: number): number {
  let removed = 0;
  for (const [widgetKey, notes] of state.pressNotes) {
    for (const [deviceId, until] of notes) {
      if (removed >= batch) return removed;
      if (until <= now) {
        notes.delete(deviceId);
        removed += 1;
      }
    }
    if (notes.size === 0) state.pressNotes.delete(widgetKey);
  }
  return removed;
}
