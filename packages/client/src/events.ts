import { LRUCache } from 'lru-cache';
import { apiErrorFrom } from './errors.js';
import type { Connection } from './http.js';
import { readSse } from './sse.js';
import { backoffDelay, type BackoffOptions, type Timing } from './timing.js';

/** The envelope of every event (docs/contract/events-and-webhooks.md#event-envelope). */
export interface TilecastEvent<TType extends string = string, TData = unknown> {
  /** Delivery id: identical on every retry and replay of one press. */
  id: string;
  /** The phone's id for the press: for logs, not for de-duplication. */
  request_id: string;
  type: TType;
  subject: { kind: string; slug: string };
  occurred_at: string;
  expires_at: string;
  data: TData;
}

export interface WidgetActionData {
  /** The pressed action's id, as published in the widget content. */
  action: string;
  kind: 'button' | 'toggle';
  /** Toggles only: the requested state. A request, not a fact. */
  value?: boolean;
}

export type WidgetActionEvent = TilecastEvent<'widget.action.v1', WidgetActionData>;

export function isWidgetAction(event: TilecastEvent): event is WidgetActionEvent {
  return event.type === 'widget.action.v1';
}

export interface EventsOptions {
  /** Only events of these types (omitted: every type). */
  types?: readonly string[];
  /** Only events about these resources, each `<kind>/<slug>` (omitted: every subject). */
  subject?: string | readonly string[];
  /** Aborting ends the iteration quietly and closes the stream. */
  signal?: AbortSignal;
  /** Resume from a position saved earlier (an `id:` of this account's stream), sent unchanged. */
  lastEventId?: string;
}

export interface EventLoopSettings {
  timing: Timing;
  backoff: Required<BackoffOptions>;
  /** How many event ids are remembered for de-duplication. */
  dedupeSize: number;
}

/** The `retry:` a stream opens with (docs/contract/events-and-webhooks.md#sse-opening), until the stream says otherwise. */
const DEFAULT_RETRY_MS = 1000;
/**
 * Refusals that retrying cannot fix (bad token, no subscription, bad filter, too many
 * streams, ...): every `4xx` but "timeout" and "too early", which are transient.
 */
const isFinal = (status: number): boolean => status >= 400 && status < 500 && status !== 408 && status !== 425;

/** State one `events()` iteration keeps across its connections. */
interface Cursor {
  lastEventId: string | undefined;
  retryMs: number;
  failures: number;
  seen: LRUCache<string, true>;
}

/**
 * `GET /events` as an endless async iterator: reconnects after the server's close (after
 * the `retry:` delay), backs off with jitter when an attempt fails, resumes with the last
 * `id:` unchanged, yields each event id once and never an expired event.
 */
export async function* streamEvents(connection: Connection, settings: EventLoopSettings, options: EventsOptions = {}): AsyncGenerator<TilecastEvent> {
  const { timing } = settings;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted) stop.abort();
  const cursor: Cursor = { lastEventId: options.lastEventId, retryMs: DEFAULT_RETRY_MS, failures: 0, seen: new LRUCache({ max: settings.dedupeSize }) };
  const url = `${connection.baseUrl}/events${query(options)}`;
  try {
    while (!stop.signal.aborted) {
      const body = await open(connection, url, cursor, stop.signal);
      if (stop.signal.aborted) break;
      if (body === undefined) {
        cursor.failures += 1;
        await timing.sleep(backoffDelay(cursor.failures, settings.backoff, timing.random()), stop.signal);
        continue;
      }
      cursor.failures = 0;
      yield* deliver(body, cursor, timing);
      await timing.sleep(cursor.retryMs, stop.signal);
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    stop.abort(); // closes a stream left open by a consumer that stopped early
  }
}

/** One connection attempt: the body of a `200`, `undefined` for a transient failure, a `TilecastApiError` for a final one. */
async function open(connection: Connection, url: string, cursor: Cursor, signal: AbortSignal): Promise<ReadableStream<Uint8Array> | undefined> {
  const headers: Record<string, string> = { authorization: connection.authorization, accept: 'text/event-stream' };
  if (cursor.lastEventId) headers['last-event-id'] = cursor.lastEventId;
  let response: Response;
  try {
    response = await connection.fetch(url, { headers, signal });
  } catch {
    return undefined; // network failure (DNS, refused, reset) or our own abort: the loop decides
  }
  if (isFinal(response.status)) throw await apiErrorFrom(response, 'GET /events');
  if (response.status !== 200 || response.body === null) {
    await response.body?.cancel().catch(() => {});
    return undefined;
  }
  return response.body;
}

/** Yields the events of one connection until it ends, for whatever reason. */
async function* deliver(body: ReadableStream<Uint8Array>, cursor: Cursor, timing: Timing): AsyncGenerator<TilecastEvent> {
  const handlers = {
    retry: (ms: number) => (cursor.retryMs = ms),
    lastEventId: (id: string) => (cursor.lastEventId = id),
  };
  try {
    for await (const message of readSse(body, handlers, cursor.lastEventId)) {
      const event = parseEnvelope(message.data);
      if (event === undefined || cursor.seen.has(event.id)) continue;
      cursor.seen.set(event.id, true);
      if (Date.parse(event.expires_at) <= timing.now()) continue;
      yield event;
    }
  } catch {
    // A connection dropped mid-stream (or aborted by us) is a close like any other: the
    // loop resumes after `retry:`, or stops when aborted.
  }
}

function parseEnvelope(data: string): TilecastEvent | undefined {
  try {
    const value: unknown = JSON.parse(data);
    if (typeof value !== 'object' || value === null) return undefined;
    const event = value as TilecastEvent;
    return typeof event.id === 'string' && typeof event.expires_at === 'string' ? event : undefined;
  } catch {
    return undefined;
  }
}

function query(options: EventsOptions): string {
  const params = new URLSearchParams();
  for (const type of options.types ?? []) params.append('types', type);
  const subjects = typeof options.subject === 'string' ? [options.subject] : (options.subject ?? []);
  for (const subject of subjects) params.append('subject', subject);
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}
