import { refuseUnholdable, type EventStreamSlotStore } from '@tilecast/core/storage';
import { inner, type MemoryState } from './state.js';

/** A slot is held while `expiresAt > now` (the same boundary as events). */
export function eventStreamSlotMethods(state: MemoryState): EventStreamSlotStore {
  const forget = (accountId: string, slots: Map<string, number>): void => {
    if (slots.size === 0) state.eventStreamSlots.delete(accountId);
  };

  return {
    // ATOMIC: expired slots are dropped, the rest counted and the new one inserted in
    // one synchronous step.
    async acquireEventStreamSlot(accountId, slotId, { max, now, ttlMs }) {
      refuseUnholdable('a stream lease', accountId, slotId);
      const slots = inner(state.eventStreamSlots, accountId);
      for (const [id, expiresAt] of slots) if (expiresAt <= now) slots.delete(id);
      // Acquiring a slot this holder already has extends it and takes no second one.
      if (!slots.has(slotId) && slots.size >= max) {
        forget(accountId, slots);
        return false;
      }
      slots.set(slotId, now + ttlMs);
      return true;
    },

    async renewEventStreamSlot(accountId, slotId, { now, ttlMs }) {
      const slots = state.eventStreamSlots.get(accountId);
      const expiresAt = slots?.get(slotId);
      if (!slots || expiresAt === undefined) return false;
      if (expiresAt <= now) {
        slots.delete(slotId);
        forget(accountId, slots);
        return false;
      }
      slots.set(slotId, now + ttlMs);
      return true;
    },

    async releaseEventStreamSlot(accountId, slotId) {
      const slots = state.eventStreamSlots.get(accountId);
      if (!slots) return;
      slots.delete(slotId);
      forget(accountId, slots);
    },
  };
}

/** Removes at most `batch` expired slots; returns how many. */
export function purgeEventStreamSlots(state: MemoryState, now: number, batch: number): number {
  let removed = 0;
  for (const [accountId, slots] of state.eventStreamSlots) {
    for (const [id, expiresAt] of slots) {
      if (removed >= batch) return removed;
      if (expiresAt <= now) {
        slots.delete(id);
        removed += 1;
      }
    }
    if (slots.size === 0) state.eventStreamSlots.delete(accountId);
  }
  return removed;
}
