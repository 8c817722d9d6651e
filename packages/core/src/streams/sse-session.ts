import type { Clock } from '../clock.js';
import type { SseSink } from '../http/types.js';
import { ssePing } from './sse-format.js';

export interface SseTimings {
  /** A `: ping` comment after this long without any other write (spec: 20 s). */
  pingMs: number;
  /** The server ends the stream after this long (spec: 15 minutes). */
  lifetimeMs: number;
}

/** A stream whose client stops reading is ended once more than this is queued (reference-deployment §9). */
export const MAX_QUEUED_BYTES = 1024 * 1024;

/**
 * One open event stream: heartbeat, lifetime, slow-consumer cut-off and a wake-up
 * primitive for the loop that feeds it. Ends exactly once, for whatever reason.
 */
export interface SseSession {
  readonly ended: boolean;
  /** Writes raw SSE text; ends the session instead when the client is too far behind. */
  send(text: string): Promise<void>;
  /** Wakes the feeding loop (new data to read). A wake-up while it was busy is kept. */
  wake(): void;
  /** Resolves on the next wake-up, or when the session ends. */
  nextWake(): Promise<void>;
  /** Runs `fn` when the session ends (at once if it already has). */
  onEnd(fn: () => void): void;
  end(): void;
}

export function openSseSession(sink: SseSink, clock: Clock, timings: SseTimings): SseSession {
  let ended = false;
  let pending = false;
  let waiter: (() => void) | undefined;
  let pingTimer: unknown;
  const endHandlers: (() => void)[] = [];

  const resolveWaiter = () => {
    const resolve = waiter;
    waiter = undefined;
    resolve?.();
  };
  const schedulePing = () => {
    clock.clearTimeout(pingTimer);
    pingTimer = clock.setTimeout(() => void session.send(ssePing), timings.pingMs);
  };
  const lifetimeTimer = clock.setTimeout(() => session.end(), timings.lifetimeMs);

  const session: SseSession = {
    get ended() {
      return ended;
    },
    async send(text) {
      if (ended) return;
      if (sink.bufferedBytes > MAX_QUEUED_BYTES) return session.end();
      schedulePing();
      await sink.write(text);
    },
    wake() {
      pending = true;
      resolveWaiter();
    },
    nextWake() {
      if (ended || pending) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => {
        waiter = () => {
          pending = false;
          resolve();
        };
      });
    },
    onEnd(fn) {
      if (ended) fn();
      else endHandlers.push(fn);
    },
    end() {
      if (ended) return;
      ended = true;
      clock.clearTimeout(pingTimer);
      clock.clearTimeout(lifetimeTimer);
      sink.end();
      resolveWaiter();
      for (const fn of endHandlers.splice(0)) fn();
    },
  };

  if (sink.signal.aborted) session.end();
  else sink.signal.addEventListener('abort', () => session.end(), { once: true });
  schedulePing();
  return session;
}
