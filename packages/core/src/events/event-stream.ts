import type { TilecastContext } from '../context.js';
import type { CoreRequest, CoreResult, SseSink } from '../http/types.js';
import type { AccountRecord } from '../storage/records.js';
import { sseRetry } from '../sse/format.js';
import type { AccountCredentialHolder } from '../sse/credential-watch.js';
import { SseConnection } from '../sse/connection.js';
import { claimStreamSlot, releaseStreamSlot } from '../sse/slot-claim.js';
import type { HeldSlot, StreamSlotKind } from '../sse/stream-slots.js';
import { matchesFilters, parseEventFilters, type EventFilters } from './filters.js';
import type { FramedEvent } from './frame-cache.js';
import { formatPosition, startPosition } from './positions.js';
import type { AppendListener } from './event-bus.js';

/** Concurrent `GET /events` streams per account (docs/contract/events-and-webhooks.md#events-stream-cap). */
export const MAX_EVENT_STREAMS = 4;
/** Events read from the log per round trip. */
const READ_BATCH = 100;

/** The slots of `GET /events`: per account. */
export const EVENT_STREAM_SLOTS: StreamSlotKind = {
  max: MAX_EVENT_STREAMS,
  refusal: { kind: 'too_many_event_streams' },
  acquire: (storage, accountId, slotId, terms) => storage.acquireEventStreamSlot(accountId, slotId, terms),
  renew: (storage, accountId, slotId, terms) => storage.renewEventStreamSlot(accountId, slotId, terms),
  release: (storage, accountId, slotId) => storage.releaseEventStreamSlot(accountId, slotId),
};

/**
 * `GET /events` after authentication: filters (`422`), a stream slot (`429`), then a
 * stream that replays from `Last-Event-ID` and follows the log live. A store outage
 * rejects with the store's `StorageUnavailableError` (the handler answers the outage stream).
 */
export async function openEventStream(context: TilecastContext, account: AccountRecord, request: CoreRequest): Promise<CoreResult> {
  const filters = parseEventFilters(request.query);
  const slot = await claimStreamSlot(context, EVENT_STREAM_SLOTS, account.id, request);

  let cursor: number;
  try {
    cursor = startPosition(request.headers['last-event-id'], await context.storage.lastEventPosition(account.id));
  } catch (error) {
    slot.abandon();
    throw error; // an outage becomes the outage stream (`streamOrOutage`), anything else a 500
  }

  return {
    kind: 'sse',
    run: (sink) => {
      if (!slot.start()) {
        sink.end();
        return Promise.resolve();
      }
      return new Promise<void>((resolve) => new EventStream(context, sink, account.id, account.tokenHash, slot.slotId, cursor, filters, resolve).follow());
    },
  };
}

/**
 * One open `GET /events` stream, as one object: the connection (heartbeat, lifetime,
 * slow-consumer cut-off), the bus listener, the held slot, the watched credential and the
 * log follower. Ten
 * thousand may be open on an instance, and every major collection marks them all.
 *
 * It replays, then follows the account's log. Gap-free: the log only grows in position
 * order, and a wake-up that comes while it reads makes it read again. It holds no pending
 * promise while idle.
 */
class EventStream extends SseConnection implements AppendListener, HeldSlot, AccountCredentialHolder {
  #reading = false;
  #again = false;

  constructor(
    private readonly context: TilecastContext,
    sink: SseSink,
    readonly accountId: string,
    /** The hash of the token the stream was opened with: the stream ends when it no longer holds. */
    readonly tokenHash: string,
    readonly slotId: string,
    private cursor: number,
    private readonly filters: EventFilters,
    private readonly finished: () => void,
  ) {
    super(sink, context.clock, context.sse);
  }

  get slotKind(): StreamSlotKind {
    return EVENT_STREAM_SLOTS;
  }

  get slotOwnerId(): string {
    return this.accountId;
  }

  /** Opens the connection, subscribes, keeps the slot renewed, watches the credential, writes the opening lines and reads. */
  follow(): void {
    this.open();
    if (this.ended) return;
    this.context.sseConnections.track(this, 'events');
    if (this.ended) return; // the instance drains
    this.context.bus.subscribe(this.accountId, this);
    this.context.streamSlots.keep(this);
    this.context.credentialWatch.watchAccount(this);
    void this.send(`${sseRetry()}id: ${formatPosition(this.cursor)}\n\n`).then(() => this.onAppend(undefined));
  }

  protected override closed(): void {
    this.context.sseConnections.untrack(this);
    this.context.bus.unsubscribe(this.accountId, this);
    this.context.streamSlots.drop(this);
    this.context.credentialWatch.unwatch(this);
    releaseStreamSlot(this.context, EVENT_STREAM_SLOTS, this.accountId, this.slotId);
    this.finished();
  }

  slotLost(): void {
    this.end();
  }

  credentialRevoked(): void {
    this.end();
  }

  onAppend(event: FramedEvent | undefined): void {
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
      while (this.#again && !this.ended) {
        this.#again = false;
        await this.#catchUp();
      }
    } catch (error) {
      this.context.logger.warn('event stream ended by an error', { error: String(error) });
      this.end();
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
      const events = await storage.readEvents(this.accountId, { after: this.cursor, now: clock.now(), limit: READ_BATCH });
      await this.#send(
        events.map((event) => frames.frame(this.accountId, event)),
        clock.now(),
      );
      full = events.length === READ_BATCH;
    } while (full && !this.ended);
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
    return event.expiresAt > now && matchesFilters(event, this.filters) ? this.send(event.frame) : undefined;
  }
}
