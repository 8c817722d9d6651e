import { LRUCache } from 'lru-cache';
import type { StoredEvent } from '../storage/records.js';
import { sseEvent } from '../sse/format.js';
import { formatPosition } from './positions.js';

/** A logged event, framed once for every stream of its account. */
export interface FramedEvent {
  position: number;
  subject: string;
  type: string;
  expiresAt: number;
  /** `id: u:<n>\ndata: <envelope>\n\n` */
  frame: string;
}

/**
 * Frames an event without keeping it: the live fan-out of a press, whose frame travels
 * with its wake-up. Caching it too would keep every event's frame for seconds, long
 * enough to be promoted to the old generation, for the rare stream that misses the
 * wake-up (it frames from the log, through the cache, once for all the account's streams).
 */
export function frameEvent(event: StoredEvent): FramedEvent {
  return {
    position: event.position,
    subject: event.subject,
    type: event.type,
    expiresAt: event.expiresAt,
    frame: sseEvent({ id: formatPosition(event.position), data: event.envelope }),
  };
}

/**
 * Recent events of every account, serialised once. Log entries never change after they
 * are appended, so a frame can be shared by all streams of the account and across reads
 * (the four streams of an account, or a replay, cost one serialisation per event).
 */
export interface FrameCache {
  /** The frame of `event`, from the cache or made now (and kept). */
  frame(accountId: string, event: StoredEvent): FramedEvent;
  /** The cached frame of a position, if any. */
  get(accountId: string, position: number): FramedEvent | undefined;
}

/** Frames are needed for moments (a live fan-out, a replay): a few MiB bound them whatever their size. */
export function createFrameCache(maxBytes = 4 * 1024 * 1024): FrameCache {
  const cache = new LRUCache<string, FramedEvent>({ maxSize: maxBytes, sizeCalculation: (framed) => framed.frame.length + 64 });
  const key = (accountId: string, position: number) => `${position}\n${accountId}`;
  return {
    frame(accountId, event) {
      const k = key(accountId, event.position);
      let framed = cache.get(k);
      if (framed === undefined) cache.set(k, (framed = frameEvent(event)));
      return framed;
    },
    get: (accountId, position) => cache.get(key(accountId, position)),
  };
}
