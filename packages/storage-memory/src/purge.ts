import { DEAD_LETTER_TTL_MS } from '@tilecast/core/storage';
import { purgeEvents } from './events.js';
import { purgeStreamSlots } from './stream-slots.js';
import { bucketIsFull } from './presses.js';
import { newExpiryOrder, type ExpiryOrder, type MemoryState } from './state.js';

/**
 * Deletes at most `batch` entries of `map` for which `expired` holds; returns how many.
 * A map known to be in expiry order is read only up to its first live entry.
 */
function purgeMap<K, V>(map: Map<K, V>, batch: number, expired: (value: V) => boolean, order?: ExpiryOrder): number {
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
 * `purgeExpired`: removes expired events, press keys, event- and device-stream slots, delivery
 * claims and dead letters older than `DEAD_LETTER_TTL_MS` (counted, as every store counts them),
 * then frees token buckets that are full again, indistinguishable from absent ones (not
 * counted), so memory stays bounded. Throttle windows need no purge: they live in their
 * widget's entry.
 */
export function purgeExpired(state: MemoryState, now: number, batch: number): number {
  const removed =
    purgeEvents(state, now, batch) +
    purgeMap(state.presses, batch, (press) => press.expiresAt <= now, state.pressOrder) +
    purgePressNotes(state, now, batch) +
    purgeStreamSlots(state.eventStreamSlots, now, batch) +
    purgeStreamSlots(state.deviceStreamSlots, now, batch) +
    purgeMap(state.claims, batch, (claim) => claim.expiresAt <= now, state.claimOrder) +
    purgeMap(state.deadLetters, batch, (letter) => letter.at + DEAD_LETTER_TTL_MS <= now, state.deadLetterOrder);
  purgeMap(state.buckets, batch, (bucket) => bucketIsFull(bucket, now));
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
