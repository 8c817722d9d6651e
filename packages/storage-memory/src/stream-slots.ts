import type { DeviceStreamSlotStore, EventStreamSlotStore, SlotAcquisition, SlotRenewal } from '@tilecast/core/storage';
import { inner, type MemoryState } from './state.js';

/** owner id (an account, a device) → slotId → expiresAt. */
export type SlotLeases = Map<string, Map<string, number>>;

/** The three slot calls on one kind of leases, whoever owns them. */
interface LeaseMethods {
  acquire(ownerId: string, slotId: string, terms: SlotAcquisition): Promise<boolean>;
  renew(ownerId: string, slotId: string, terms: SlotRenewal): Promise<boolean>;
  release(ownerId: string, slotId: string): Promise<void>;
}

/**
 * Stream slots held in `leases`: event-stream slots per account and device-stream slots per
 * device follow one rule. A slot is held while `expiresAt > now` (the same boundary as events).
 */
function leaseMethods(leases: SlotLeases): LeaseMethods {
  const forget = (ownerId: string, slots: Map<string, number>): void => {
    if (slots.size === 0) leases.delete(ownerId);
  };

  return {
    // ATOMIC: expired slots are dropped, the rest counted and the new one inserted in
    // one synchronous step.
    async acquire(ownerId, slotId, { max, now, ttlMs }) {
      const slots = inner(leases, ownerId);
      for (const [id, expiresAt] of slots) if (expiresAt <= now) slots.delete(id);
      // Acquiring a slot this holder already has extends it and takes no second one.
      if (!slots.has(slotId) && slots.size >= max) {
        forget(ownerId, slots);
        return false;
      }
      slots.set(slotId, now + ttlMs);
      return true;
    },

    async renew(ownerId, slotId, { now, ttlMs }) {
      const slots = leases.get(ownerId);
      const expiresAt = slots?.get(slotId);
      if (!slots || expiresAt === undefined) return false;
      if (expiresAt <= now) {
        slots.delete(slotId);
        forget(ownerId, slots);
        return false;
      }
      slots.set(slotId, now + ttlMs);
      return true;
    },

    async release(ownerId, slotId) {
      const slots = leases.get(ownerId);
      if (!slots) return;
      slots.delete(slotId);
      forget(ownerId, slots);
    },
  };
}

export function eventStreamSlotMethods(state: MemoryState): EventStreamSlotStore {
  const { acquire, renew, release } = leaseMethods(state.eventStreamSlots);
  return { acquireEventStreamSlot: acquire, renewEventStreamSlot: renew, releaseEventStreamSlot: release };
}

export function deviceStreamSlotMethods(state: MemoryState): DeviceStreamSlotStore {
  const { acquire, renew, release } = leaseMethods(state.deviceStreamSlots);
  return { acquireDeviceStreamSlot: acquire, renewDeviceStreamSlot: renew, releaseDeviceStreamSlot: release };
}

/** Removes at most `batch` expired slots of `leases`; returns how many. */
export function purgeStreamSlots(leases: SlotLeases, now: number, batch: number): number {
  let removed = 0;
  for (const [ownerId, slots] of leases) {
    for (const [id, expiresAt] of slots) {
      if (removed >= batch) return removed;
      if (expiresAt <= now) {
        slots.delete(id);
        removed += 1;
      }
    }
    if (slots.size === 0) leases.delete(ownerId);
  }
  return removed;
}
