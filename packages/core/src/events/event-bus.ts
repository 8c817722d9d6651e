import mitt from 'mitt';
import type { Storage } from '../storage/storage.js';
import type { FramedEvent } from './frame-cache.js';

/**
 * Wakes the live streams of an account when it has new events. A wake-up from this
 * instance carries the event it announces, framed: a stream whose cursor is right before
 * it sends it at once, without reading the log. Any other stream (behind, busy reading,
 * or woken by another instance, which carries nothing) reads the log, so a wake-up can
 * never put events out of order, and one that is spurious costs only a read.
 */
export type WakeListener = (event: FramedEvent | undefined) => void;

export interface EventBus {
  /** An event was appended to this account's log (here, with the event, or on another instance). */
  notify(accountId: string, event?: FramedEvent): void;
  /** Calls `listener` on every notification for the account; returns the unsubscribe. */
  subscribe(accountId: string, listener: WakeListener): () => void;
  close(): void;
}

export function createEventBus(storage: Storage): EventBus {
  const emitter = mitt<Record<string, FramedEvent | undefined>>();
  // Other instances' appends arrive through the store, when it offers a wake-up channel.
  const unsubscribeStore = storage.subscribeEvents?.((accountId) => emitter.emit(accountId));
  return {
    notify: (accountId, event) => emitter.emit(accountId, event),
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
