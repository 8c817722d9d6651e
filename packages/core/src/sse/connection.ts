import type { Clock } from '../clock.js';
import type { SseSink } from '../http/types.js';
import { ssePing } from './format.js';

export interface SseTimings {
  /** A `: ping` comment after this long without any other write (docs/contract/events-and-webhooks.md#sse-heartbeat: 20 s). */
  pingMs: number;
  /** The server ends the stream after this long (docs/contract/events-and-webhooks.md#sse-lifetime: 15 minutes). */
  lifetimeMs: number;
}

const settled = Promise.resolve();

/** A stream whose client stops reading is ended once more than this is queued (docs/contract/events-and-webhooks.md#sse-slow-consumer-cutoff). */
export const MAX_QUEUED_BYTES = 1024 * 1024;

export function openSseConnection(sink: SseSink, clock: Clock, timings: SseTimings): SseConnection {
  return new SseConnection(sink, clock, timings).open();
}

/**
 * One open server-sent-events response (`GET /events`, `GET /device/stream`): heartbeat,
 * lifetime, slow-consumer cut-off and a wake-up primitive for the loop that feeds it.
 * Ends exactly once, for whatever reason.
 *
 * A class rather than closures: one exists per open stream, so its footprint counts.
 * A stream kind with more state per stream (`GET /events`) extends it, so that each open
 * stream is one object and not a connection plus a follower plus the closures between them.
 */
export class SseConnection {
  ended = false;
  #pending = false;
  #waiter: (() => void) | undefined;
  #timer: unknown;
  #lastWriteAt: number;
  readonly #endsAt: number;
  #endHandlers: (() => void)[] | undefined;
  /** One callback for every re-arming of the timer (it is re-armed after each ping interval). */
  readonly #onTimer = (): void => this.#tick();
  /** The client left: called by the sink's `onClose`, or its signal's abort. */
  readonly #onClose = (): void => this.end();

  constructor(
    private readonly sink: SseSink,
    private readonly clock: Clock,
    private readonly timings: SseTimings,
  ) {
    this.#lastWriteAt = clock.now();
    this.#endsAt = this.#lastWriteAt + timings.lifetimeMs;
  }

  /**
   * Watches the client and starts the timer; ends at once if the client already left.
   * Not in the constructor: an end there would run a subclass's `closed` before its
   * own fields exist.
   */
  open(): this {
    if (this.sink.onClose) this.sink.onClose(this.#onClose);
    else if (this.sink.signal.aborted) this.end();
    else this.sink.signal.addEventListener('abort', this.#onClose, { once: true });
    this.#schedule();
    return this;
  }

  /** Writes raw SSE text; ends the connection instead when the client is too far behind. */
  // Not an async function: every event of every stream goes through here.
  send(text: string): Promise<void> {
    if (this.ended) return settled;
    if (this.sink.bufferedBytes > MAX_QUEUED_BYTES) {
      this.end();
      return settled;
    }
    this.#lastWriteAt = this.clock.now();
    return this.sink.write(text);
  }

  /** Wakes the feeding loop (new data to read). A wake-up while it was busy is kept. */
  wake(): void {
    this.#pending = true;
    this.#resolveWaiter();
  }

  /** Resolves on the next wake-up, or when the connection ends. */
  nextWake(): Promise<void> {
    if (this.ended || this.#pending) {
      this.#pending = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      this.#waiter = () => {
        this.#pending = false;
        resolve();
      };
    });
  }

  /** Runs `fn` when the connection ends (at once if it already has). */
  onEnd(fn: () => void): void {
    if (this.ended) fn();
    else (this.#endHandlers ??= []).push(fn);
  }

  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.clock.clearTimeout(this.#timer);
    this.sink.end();
    this.#resolveWaiter();
    this.closed();
    for (const fn of this.#endHandlers?.splice(0) ?? []) fn();
  }

  /** Runs once, when the connection ends, before the `onEnd` functions: a subclass's clean-up. */
  protected closed(): void {}

  #resolveWaiter(): void {
    const resolve = this.#waiter;
    this.#waiter = undefined;
    resolve?.();
  }

  /**
   * One timer per stream, for both the heartbeat and the lifetime, and not one per write:
   * it fires at the earlier of the two; a ping goes out only after a whole idle interval.
   */
  #schedule(): void {
    if (this.ended) return;
    const now = this.clock.now();
    const pingAt = this.#lastWriteAt + this.timings.pingMs;
    this.#timer = this.clock.setTimeout(this.#onTimer, Math.max(0, Math.min(pingAt, this.#endsAt) - now));
  }

  #tick(): void {
    const now = this.clock.now();
    if (now >= this.#endsAt) return this.end();
    if (now - this.#lastWriteAt >= this.timings.pingMs) void this.send(ssePing);
    this.#schedule();
  }
}
