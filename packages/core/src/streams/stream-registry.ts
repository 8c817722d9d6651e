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
  /** Watches an open session; ends it at once when the instance is draining. */
  track(session: SseSession): void;
  untrack(session: SseSession): void;
  /** Marks the instance draining and ends every open stream; answers how many it ended. */
  drain(): number;
  readonly size: number;
}

/** The closing lines of a stream ended by a shutdown: reconnect after the usual delay. */
const FINAL_RETRY = `${sseRetry()}\n`;

export function createStreamRegistry(): StreamRegistry {
  const sessions = new Set<SseSession>();
  let draining = false;
  const finish = (session: SseSession): void => {
    void session.send(FINAL_RETRY);
    session.end();
  };
  return {
    get draining() {
      return draining;
    },
    get size() {
      return sessions.size;
    },
    track(session) {
      if (session.ended) return;
      if (draining) return finish(session);
      sessions.add(session);
    },
    untrack(session) {
      sessions.delete(session);
    },
    drain() {
      draining = true;
      const open = [...sessions];
      sessions.clear();
      for (const session of open) finish(session);
      return open.length;
    },
  };
}
