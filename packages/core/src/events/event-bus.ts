import mitt from 'mitt';
import type { Storage } from '../storage/storage.js';

/**
 * Wakes the live streams of an account when it has new events. Carries no event data:
 * streams read from the log, so a wake-up can never be out of order, and one that is
 * spurious costs only a read.
 */
export interface EventBus {
  /** An event was appended to this account's log (here or on another instance). */
  notify(accountId: string): void;
  /** Calls `listener` on every notification for the account; returns the unsubscribe. */
  subscribe(accountId: string, listener: () => void): () => void;
  close(): void;
}

export function createEventBus(storage: Storage): EventBus {
  const emitter = mitt<Record<string, void>>();
  // Other instances' appends arrive through the store, when it offers a wake-up channel.
  const unsubscribeStore = storage.subscribeEvents?.((accountId) => emitter.emit(accountId));
  return {
    notify: (accountId) => emitter.emit(accountId),
    subscribe(accountId, listener) {
      emitter.on(accountId, listener);
      return () => emitter.off(accountId, listener);
    },
    close() {
      unsubscribeStore?.();
      emitter.all.clear();
    },
  };
}
