import type { StoredEvent } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { frameEvent, type FramedEvent } from './frame-cache.js';

/**
 * Wakes the live streams of an account when it has new events. A wake-up from this
 * instance carries the event it announces, framed: a stream whose cursor is right before
 * it sends it at once, without reading the log. Any other stream (behind, busy reading,
 * or woken by another instance, which carries nothing) reads the log, so a wake-up can
 * never put events out of order, and one that is spurious costs only a read.
 */
export interface AppendListener {
  /** An event was appended to the account's log: here `event`, or unknown (another instance's). */
  onAppend(event: FramedEvent | undefined): void;
}

export interface EventBus {
  /**
   * An event was appended to this account's log (here, with the event, or on another
   * instance). The event is framed once for all the account's listeners, and only when
   * it has some: most presses have no stream open on this instance to read them.
   */
  notify(accountId: string, event?: StoredEvent): void;
  /** Tells `listener` of every append to the account's log until it unsubscribes. */
  subscribe(accountId: string, listener: AppendListener): void;
  /** Removes one subscription of `listener` (none if it has none). */
  unsubscribe(accountId: string, listener: AppendListener): void;
  close(): void;
}

/**
 * Listeners by account, in arrays that are replaced, never changed: a stream opens or
 * closes rarely, and every event is announced, so a notification walks the array as it
 * is (no copy per event), and a listener that unsubscribes during it (a stream ended by
 * its own write) changes only the next notification's array. An account without
 * listeners leaves no entry behind.
 */
export function createEventBus(storage: Storage): EventBus {
  // Listeners are the streams themselves (objects, not closures: one per open stream).
  const listeners = new Map<string, readonly AppendListener[]>();
  const notify = (accountId: string, event?: StoredEvent): void => {
    const current = listeners.get(accountId);
    if (current === undefined) return;
    const framed = event === undefined ? undefined : frameEvent(event);
    for (let i = 0; i < current.length; i++) current[i]!.onAppend(framed);
  };
  // Other instances' appends arrive through the store, when it offers a wake-up channel.
  const unsubscribeStore = storage.subscribeEvents?.((accountId) => notify(accountId));
  return {
    notify,
    subscribe(accountId, listener) {
      listeners.set(accountId, [...(listeners.get(accountId) ?? []), listener]);
    },
    unsubscribe(accountId, listener) {
      const current = listeners.get(accountId) ?? [];
      const at = current.indexOf(listener);
      if (at === -1) return;
      const rest = [...current.slice(0, at), ...current.slice(at + 1)];
      if (rest.length > 0) listeners.set(accountId, rest);
      else listeners.delete(accountId);
    },
    close() {
      unsubscribeStore?.();
      listeners.clear();
    },
  };
}
