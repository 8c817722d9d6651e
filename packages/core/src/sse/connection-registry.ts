import type { SafeObserver, StreamObservation } from '../observer.js';
import type { SseConnection } from './connection.js';
import { sseRetry } from './format.js';

/**
 * This instance's open streams (`GET /events`, `GET /device/stream`), so a shutdown can end
 * them all cleanly: a last `retry:` line, then the end of the response, and the client
 * reconnects, to another instance once this one stopped accepting.
 */
export interface SseConnectionRegistry {
  /** True once `drain()` ran: streams opened from now on end at once the same way. */
  readonly draining: boolean;
  /** Watches an open connection of an event or device stream; ends it at once when the instance is draining. */
  track(connection: SseConnection, kind: StreamObservation['kind']): void;
  untrack(connection: SseConnection): void;
  /** Marks the instance draining and ends every open stream; answers how many it ended. */
  drain(): number;
  readonly size: number;
}

/** The closing lines of a stream ended by a shutdown: reconnect after the usual delay. */
const FINAL_RETRY = `${sseRetry()}\n`;

/** `observer`, when given, is told of each stream tracked (opened) and untracked or drained (closed). */
export function createSseConnectionRegistry(observer?: SafeObserver): SseConnectionRegistry {
  const connections = new Map<SseConnection, StreamObservation>();
  let draining = false;
  const finish = (connection: SseConnection): void => {
    void connection.send(FINAL_RETRY);
    connection.end();
  };
  const forget = (connection: SseConnection): void => {
    const stream = connections.get(connection);
    if (stream === undefined) return;
    connections.delete(connection);
    observer?.streamClosed(stream);
  };
  // One object per kind: a stream's open and close carry the same.
  const kinds: Record<StreamObservation['kind'], StreamObservation> = { events: { kind: 'events' }, device: { kind: 'device' } };
  return {
    get draining() {
      return draining;
    },
    get size() {
      return connections.size;
    },
    track(connection, kind) {
      if (connection.ended) return;
      if (draining) return finish(connection);
      if (connections.has(connection)) return;
      connections.set(connection, kinds[kind]);
      observer?.streamOpened(kinds[kind]);
    },
    untrack: forget,
    drain() {
      draining = true;
      const open = [...connections.keys()];
      for (const connection of open) forget(connection);
      for (const connection of open) finish(connection);
      return open.length;
    },
  };
}
