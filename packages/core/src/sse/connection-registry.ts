import { sseRetry } from './format.js';
import type { SseConnection } from './connection.js';

/**
 * This instance's open streams (`GET /events`, `GET /device/stream`), so a shutdown can end
 * them all cleanly: a last `retry:` line, then the end of the response, and the client
 * reconnects, to another instance once this one stopped accepting.
 */
export interface SseConnectionRegistry {
  /** True once `drain()` ran: streams opened from now on end at once the same way. */
  readonly draining: boolean;
  /** Watches an open connection; ends it at once when the instance is draining. */
  track(connection: SseConnection): void;
  untrack(connection: SseConnection): void;
  /** Marks the instance draining and ends every open stream; answers how many it ended. */
  drain(): number;
  readonly size: number;
}

/** The closing lines of a stream ended by a shutdown: reconnect after the usual delay. */
const FINAL_RETRY = `${sseRetry()}\n`;

export function createSseConnectionRegistry(): SseConnectionRegistry {
  const connections = new Set<SseConnection>();
  let draining = false;
  const finish = (connection: SseConnection): void => {
    void connection.send(FINAL_RETRY);
    connection.end();
  };
  return {
    get draining() {
      return draining;
    },
    get size() {
      return connections.size;
    },
    track(connection) {
      if (connection.ended) return;
      if (draining) return finish(connection);
      connections.add(connection);
    },
    untrack(connection) {
      connections.delete(connection);
    },
    drain() {
      draining = true;
      const open = [...connections];
      connections.clear();
      for (const connection of open) finish(connection);
      return open.length;
    },
  };
}
