import type { SafeObserver, StreamObservation } from '../observer.js';
import { sseRetry } from './sse-format.js';
import type { SseSession } from './sse-session.js';

/**
 * This instance's open streams (`GET /events`, `GET /device/stream`), so a shutdown can end
 * them all cleanly: a last `retry:` line, then the end of the response, and the client
 * reconnects, to another instance once this one stopped accepting.
 */
export interface StreamRegistry {
  /** True once `drain()` ran: streams opened from now on end at once the same way. */
  readonly draining: boolean;
  /** Watches an open session of an event or device stream; ends it at once when the instance is draining. */
  track(session: SseSession, kind: StreamObservation['kind']): void;
  untrack(session: SseSession): void;
  /** Marks the instance draining and ends every open stream; answers how many it ended. */
  drain(): number;
  readonly size: number;
}

/** The closing lines of a stream ended by a shutdown: reconnect after the usual delay. */
const FINAL_RETRY = `${sseRetry()}\n`;

/** `observer`, when given, is told of each stream tracked (opened) and untracked or drained (closed). */
export function createStreamRegistry(observer?: SafeObserver): StreamRegistry {
  const sessions = new Map<SseSession, StreamObservation>();
  let draining = false;
  const finish = (session: SseSession): void => {
    void session.send(FINAL_RETRY);
    session.end();
  };
  const forget = (session: SseSession): void => {
    const stream = sessions.get(session);
    if (stream === undefined) return;
    sessions.delete(session);
    observer?.streamClosed(stream);
  };
  // One object per kind: a stream's open and close carry the same.
  const kinds: Record<StreamObservation['kind'], StreamObservation> = { events: { kind: 'events' }, device: { kind: 'device' } };
  return {
    get draining() {
      return draining;
    },
    get size() {
      return sessions.size;
    },
    track(session, kind) {
      if (session.ended) return;
      if (draining) return finish(session);
      if (sessions.has(session)) return;
      sessions.set(session, kinds[kind]);
      observer?.streamOpened(kinds[kind]);
    },
    untrack: forget,
    drain() {
      draining = true;
      const open = [...sessions.keys()];
      for (const session of open) forget(session);
      for (const session of open) finish(session);
      return open.length;
    },
  };
}
