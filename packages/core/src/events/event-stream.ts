import { randomUUID } from 'node:crypto';
import type { TilecastContext } from '../context.js';
import { fail } from '../errors.js';
import type { CoreRequest, CoreResult, SseSink } from '../http/types.js';
import type { AccountRecord } from '../storage/records.js';
import { sseEvent, sseRetry } from '../streams/sse-format.js';
import { openSseSession, type SseSession } from '../streams/sse-session.js';
import { matchesFilters, parseEventFilters, type EventFilters } from './filters.js';
import { formatPosition, startPosition } from './positions.js';

/** Concurrent `GET /events` streams per account (spec "Limits"). */
export const MAX_EVENT_STREAMS = 4;
/** A stream slot is a lease renewed while the stream lives, so a crashed instance's slots free themselves. */
export const STREAM_LEASE_TTL_MS = 60_000;
export const STREAM_LEASE_RENEW_MS = 20_000;
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
  request.signal?.addEventListener('abort', release, { once: true });

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
    run: async (sink) => {
      const session = openSseSession(sink, clock, context.sse);
      session.onEnd(release);
      if (released) return session.end();
      const unsubscribe = context.bus.subscribe(account.id, () => session.wake());
      const stopRenewing = keepLease(context, session, account.id, leaseId);
      try {
        await session.send(`${sseRetry()}id: ${formatPosition(cursor)}\n\n`);
        await follow(context, session, account.id, cursor, filters);
      } catch (error) {
        logger.warn('event stream ended by an error', { error: String(error) });
      } finally {
        unsubscribe();
        stopRenewing();
        session.end();
      }
    },
  };
}

/** Replays, then follows the account's log until the session ends. Gap-free: the log only grows in position order. */
async function follow(context: TilecastContext, session: SseSession, accountId: string, from: number, filters: EventFilters): Promise<void> {
  let cursor = from;
  while (!session.ended) {
    const events = await context.storage.readEvents(accountId, cursor, context.clock.now(), READ_BATCH);
    for (const event of events) {
      cursor = event.position;
      if (matchesFilters(event, filters)) await session.send(sseEvent({ id: formatPosition(event.position), data: event.envelope }));
    }
    if (events.length < READ_BATCH) await session.nextWake();
  }
}

/** Renews the stream's lease until the session ends; a lost lease ends the stream. */
function keepLease(context: TilecastContext, session: SseSession, accountId: string, leaseId: string): () => void {
  const { storage, clock } = context;
  let timer: unknown;
  const schedule = () => {
    if (session.ended) return;
    timer = clock.setTimeout(() => {
      storage
        .renewStreamLease(accountId, leaseId, clock.now(), STREAM_LEASE_TTL_MS)
        .then((held) => (held ? schedule() : session.end()))
        .catch(() => session.end());
    }, STREAM_LEASE_RENEW_MS);
  };
  schedule();
  return () => clock.clearTimeout(timer);
}

/** The spec's answer to a temporary outage: `200`, a `retry:` line, then the end. */
export function outageStream(): CoreResult {
  return {
    kind: 'sse',
    run: async (sink: SseSink) => {
      await sink.write(`${sseRetry()}\n`);
      sink.end();
    },
  };
}
