import { tokenTakes, type PressStore, type TokenBucketRule } from '@tilecast/core/storage';
import { appendToLog } from './events.js';
import { byCodeUnit, noteAppended, type Bucket, type MemoryState } from './state.js';

/** Credits whole refill periods since the last refill, keeping the partial one. */
function refill(bucket: Bucket, now: number): void {
  const periods = Math.floor(Math.max(0, now - bucket.refilledAt) / bucket.refillMs);
  if (periods <= 0) return;
  if (bucket.tokens + periods >= bucket.capacity) {
    bucket.tokens = bucket.capacity;
    bucket.refilledAt = now;
  } else {
    bucket.tokens += periods;
    bucket.refilledAt += periods * bucket.refillMs;
  }
}

/** True when the bucket would be full at `now`, i.e. indistinguishable from a new one. */
export function bucketIsFull(bucket: Bucket, now: number): boolean {
  refill(bucket, now);
  return bucket.tokens >= bucket.capacity;
}

/**
 * Refills, checks and spends every bucket of `rules` in one synchronous step: one token
 * from each, or none from any (a key named twice: see core's `tokenTakes`).
 */
function takeTokens(state: MemoryState, rules: TokenBucketRule[], now: number): boolean {
  // Each bucket looked up once (these maps hold an entry per phone and widget, so lookups
  // are not free).
  const wanted = tokenTakes(rules);
  const buckets = wanted.map(({ rule }) => refilledBucket(state, rule, now));
  // Plain loops: this runs for every press.
  for (let i = 0; i < wanted.length; i++) if (buckets[i]!.tokens < wanted[i]!.take) return false;
  for (let i = 0; i < wanted.length; i++) buckets[i]!.tokens -= wanted[i]!.take;
  return true;
}

/**
 * The rule's bucket, refilled to `now` under the rule's capacity and refill time. A new
 * one starts full and is kept at once: refilling changes nothing observable, so it may
 * stay even when the take is refused.
 */
function refilledBucket(state: MemoryState, rule: TokenBucketRule, now: number): Bucket {
  let bucket = state.buckets.get(rule.key);
  if (bucket === undefined) {
    bucket = { tokens: rule.capacity, refilledAt: now, capacity: rule.capacity, refillMs: rule.refillMs };
    state.buckets.set(rule.key, bucket);
    return bucket;
  }
  bucket.capacity = rule.capacity;
  bucket.refillMs = rule.refillMs;
  refill(bucket, now);
  bucket.tokens = Math.min(bucket.tokens, bucket.capacity);
  return bucket;
}

function notePress(state: MemoryState, widgetKey: string, deviceId: string, until: number): void {
  let notes = state.pressNotes.get(widgetKey);
  if (!notes) state.pressNotes.set(widgetKey, (notes = new Map()));
  notes.set(deviceId, until);
}

export function pressMethods(state: MemoryState): PressStore {
  return {
    // ATOMIC: every check and write in one synchronous step.
    async admitPress({ key, keyExpiresAt, rules, now, note, accountId, event }) {
      const held = state.presses.get(key);
      if (held !== undefined && held.expiresAt > now) return { outcome: 'duplicate', eventId: held.eventId };
      if (!takeTokens(state, rules, now)) return { outcome: 'limited' };
      // Appended, even over an expired entry of the same key: the map stays in admission order.
      if (held !== undefined) state.presses.delete(key);
      state.presses.set(key, { eventId: event.id, expiresAt: keyExpiresAt });
      noteAppended(state.pressOrder, keyExpiresAt);
      notePress(state, note.widgetKey, note.deviceId, note.until);
      return { outcome: 'accepted', event: { ...appendToLog(state, accountId, event) } };
    },

    async notePress({ widgetKey, deviceId, until }) {
      notePress(state, widgetKey, deviceId, until);
    },

    async listRecentPressers(widgetKey, now) {
      const devices: string[] = [];
      for (const [deviceId, until] of state.pressNotes.get(widgetKey) ?? []) if (until > now) devices.push(deviceId);
      return devices.sort(byCodeUnit);
    },
  };
}
