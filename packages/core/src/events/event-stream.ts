import { randomUUID } from 'node:crypto';
import type { TilecastContext } from '../context.js';
import { fail } from '../errors.js';
import type { CoreRequest, CoreResult, SseSink } from '../http/types.js';
import type { AccountRecord } from '../storage/records.js';
import { sseRetry } from '../streams/sse-format.js';
import { openSseSession, type SseSession } from '../streams/sse-session.js';
import { matchesFilters, parseEventFilters, type EventFilters } from './filters.js';
import type { FramedEvent } from './frame-cache.js';
import { formatPosition, startPosition } from './positions.js';
import { STREAM_LEASE_TTL_MS } from './stream-leases.js';

/** Concurrent `GET /events` streams per account (spec "Limits"). */
export const MAX_EVENT_STREAMS = 4;
/** Events read from the log per round trip. */
const READ_BATCH = 100;

/**
 * `GET /events` after authentication: filters (`422`), a stream slot (`429`), then a
 * stream that replays from `Last-Event-ID` and follows the log live. When the store is
 * unavailable the answer is the spec's temporary-outage stream: only `retry:`, then end.
 */
export async function openEventStream(context: TilecastContext, account: AccountRecord, request: CoreRequest): Promise<CoreResult> {
  const filters = parseEventFilters(request.query);
  const { storage, clock, logger } = context;
  const leaseId = randomUUID();
  let acquired: boolean;
  try {
    acquired = await storage.acquireStreamLease(account.id, leaseId, MAX_EVENT_STREAMS, clock.now(), STREAM_LEASE_TTL_MS);
  } catch (error) {
    logger.error('event stream unavailable', { error: String(error) });
    return outageStream();
  }
  if (!acquired) fail({ kind: 'too_many_event_streams' });

  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    storage.releaseStreamLease(account.id, leaseId).catch((error: unknown) => logger.warn('stream lease release failed', { error: String(error) }));
  };
  // A client that leaves before the stream runs must not keep its slot.
  // Only the signal is kept, not the request: a stream may live for 15 minutes.
  const clientGone = request.signal;
  clientGone?.addEventListener('abort', release, { once: true });

  let cursor: number;
  try {
    cursor = startPosition(request.headers['last-event-id'], await storage.lastEventPosition(account.id));
  } catch (error) {
    release();
    logger.error('event stream unavailable', { error: String(error) });
    return outageStream();
  }

  return {
    kind: 'sse',
    run: (sink) =>
      new Promise<void>((resolve) => {
        // From here on the session's end releases the slot.
        clientGone?.removeEventListener('abort', release);
        const session = openSseSession(sink, clock, context.sse);
        if (released) {
          session.end();
          return resolve();
        }
        const follower = new LogFollower(context, session, account.id, cursor, filters);
        const unsubscribe = context.bus.subscribe(account.id, (event) => follower.wake(event));
        const stopRenewing = context.streamLeases.keep(account.id, leaseId, () => session.end());
        session.onEnd(() => {
          unsubscribe();
          stopRenewing();
          release();
          resolve();
        });
        void session.send(`${sseRetry()}id: ${formatPosition(cursor)}\n\n`).then(() => follower.wake());
      }),
  };
}

/**
 * Replays, then follows the account's log. Gap-free: the log only grows in position order,
 * and a wake-up that comes while it reads makes it read again. It holds no pending
 * promise while idle (an instance may hold ten thousand idle streams).
 */
class LogFollower {
  #reading = false;
  #again = false;

  constructor(
    private readonly context: TilecastContext,
    private readonly session: SseSession,
    private readonly accountId: string,
    private cursor: number,
    private readonly filters: EventFilters,
  ) {}

  wake(event?: FramedEvent): void {
    // The next event in order, while nothing is being read: send it as it is, at once
    // (the sink queues it; nothing to wait for). This runs for every event on every
    // stream of its account, so it makes no promise and no array.
    if (event !== undefined && !this.#reading && event.position === this.cursor + 1) {
      void this.#pass(event, this.context.clock.now());
      return;
    }
    this.#again = true;
    if (this.#reading) return; // the running read loop sees #again before it stops
    this.#reading = true;
    void this.#run();
  }

  async #run(): Promise<void> {
    try {
      while (this.#again && !this.session.ended) {
        this.#again = false;
        await this.#catchUp();
      }
    } catch (error) {
      this.context.logger.warn('event stream ended by an error', { error: String(error) });
      this.session.end();
    } finally {
      // No await between the loop's last check of #again and this: no wake-up is lost.
      this.#reading = false;
    }
  }

  /**
   * Sends every event after the cursor. Recent events are often framed already (by
   * another stream of the account that read them): then only the log's end is read.
   * Anything else is read from the log in batches, and framed once for all streams.
   */
  async #catchUp(): Promise<void> {
    const { storage, clock, frames } = this.context;
    const last = await storage.lastEventPosition(this.accountId);
    if (last - this.cursor <= READ_BATCH) {
      const cached: FramedEvent[] = [];
      for (let position = this.cursor + 1; position <= last; position++) {
        const framed = frames.get(this.accountId, position);
        if (framed === undefined) break;
        cached.push(framed);
      }
      if (cached.length === last - this.cursor) return this.#send(cached, clock.now());
    }
    let full: boolean;
    do {
      const events = await storage.readEvents(this.accountId, this.cursor, clock.now(), READ_BATCH);
      await this.#send(events.map((event) => frames.frame(this.accountId, event)), clock.now());
      full = events.length === READ_BATCH;
    } while (full && !this.session.ended);
  }

  async #send(events: FramedEvent[], now: number): Promise<void> {
    for (const event of events) {
      const sent = this.#pass(event, now);
      if (sent !== undefined) await sent;
    }
  }

  /** Moves the cursor past `event` and sends it unless it expired or the filters skip it. */
  #pass(event: FramedEvent, now: number): Promise<void> | undefined {
    this.cursor = event.position;
    return event.expiresAt > now && matchesFilters(event, this.filters) ? this.session.send(event.frame) : undefined;
  }
}

/** The spec's answer to a temporary outage: `200`, a `retry:` line, then the end. */
function outageStream(): CoreResult {
  return {
    kind: 'sse',
    run: async (sink: SseSink) => {
      await sink.write(`${sseRetry()}\n`);
      sink.end();
    },
  };
}
