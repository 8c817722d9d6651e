import { refuseUnholdable, type LeaseStore } from '@tilecast/core/storage';
import { inner, type MemoryState } from './state.js';

/** A lease is held while `expiresAt > now` (the same boundary as events). */
export function leaseMethods(state: MemoryState): LeaseStore {
  const forget = (accountId: string, leases: Map<string, number>): void => {
    if (leases.size === 0) state.leases.delete(accountId);
  };

  return {
    // ATOMIC: expired leases are dropped, the rest counted and the new one inserted in
    // one synchronous step.
    async acquireStreamLease(accountId, leaseId, { max, now, ttlMs }) {
      refuseUnholdable('a stream lease', accountId, leaseId);
      const leases = inner(state.leases, accountId);
      for (const [id, expiresAt] of leases) if (expiresAt <= now) leases.delete(id);
      // Acquiring a lease this holder already has extends it and takes no second slot.
      if (!leases.has(leaseId) && leases.size >= max) {
        forget(accountId, leases);
        return false;
      }
      leases.set(leaseId, now + ttlMs);
      return true;
    },

    async renewStreamLease(accountId, leaseId, { now, ttlMs }) {
      const leases = state.leases.get(accountId);
      const expiresAt = leases?.get(leaseId);
      if (!leases || expiresAt === undefined) return false;
      if (expiresAt <= now) {
        leases.delete(leaseId);
        forget(accountId, leases);
        return false;
      }
      leases.set(leaseId, now + ttlMs);
      return true;
    },

    async releaseStreamLease(accountId, leaseId) {
      const leases = state.leases.get(accountId);
      if (!leases) return;
      leases.delete(leaseId);
      forget(accountId, leases);
    },
  };
}

/** Removes at most `batch` expired leases; returns how many. */
export function purgeLeases(state: MemoryState, now: number, batch: number): number {
  let removed = 0;
  for (const [accountId, leases] of state.leases) {
    for (const [id, expiresAt] of leases) {
      if (removed >= batch) return removed;
      if (expiresAt <= now) {
        leases.delete(id);
        removed += 1;
      }
    }
    if (leases.size === 0) state.leases.delete(accountId);
  }
  return removed;
}
