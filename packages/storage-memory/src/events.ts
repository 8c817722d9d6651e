import type { StoredEvent, EventStore } from '@tilecast/core/storage';
import { copy, type MemoryState } from './state.js';

/** Index of the first event with a position above `afterPosition` (the log is in position order). */
function firstAfter(events: StoredEvent[], afterPosition: number): number {
  let low = 0;
  let high = events.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (events[mid]!.position > afterPosition) high = mid;
    else low = mid + 1;
  }
  return low;
}

/**
 * Appends to the account's log, synchronously: the counter is read and raised in the same
 * step as the push. Returns the stored event itself (callers hand out copies).
 */
export function appendToLog(state: MemoryState, accountId: string, event: Omit<StoredEvent, 'position'>): StoredEvent {
  let log = state.events.get(accountId);
  if (!log) {
    log = { last: 0, events: [] };
    state.events.set(accountId, log);
  }
  log.last += 1;
  // The event is handed over by the caller (Storage rules): it is kept as it is, with its
  // position, not copied (it lives as long as the log keeps it).
  const stored = event as StoredEvent;
  stored.position = log.last;
  log.events.push(stored);
  return stored;
}

export function eventMethods(state: MemoryState): EventStore {
  return {
    // ATOMIC: one synchronous step.
    async appendEvent(accountId, event) {
      return { ...appendToLog(state, accountId, event) };
    },

    async readEvents(accountId, { after: afterPosition, now, limit }) {
      const events = state.events.get(accountId)?.events ?? [];
      const found: StoredEvent[] = [];
      for (let i = firstAfter(events, afterPosition); i < events.length && found.length < limit; i++) {
        const event = events[i]!;
        if (event.expiresAt > now) found.push(copy(event));
      }
      return found;
    },

    async lastEventPosition(accountId) {
      return state.events.get(accountId)?.last ?? 0;
    },

    async countEvents() {
      let total = 0;
      for (const log of state.events.values()) total += log.events.length;
      return total;
    },
  };
}

/** Removes at most `batch` expired events; returns how many. */
export function purgeEvents(state: MemoryState, now: number, batch: number): number {
  let removed = 0;
  for (const log of state.events.values()) {
    if (removed >= batch) break;
    if (!log.events.some((event) => event.expiresAt <= now)) continue;
    log.events = log.events.filter((event) => {
      if (removed < batch && event.expiresAt <= now) {
        removed += 1;
        return false;
      }
      return true;
    });
  }
  return removed;
}
