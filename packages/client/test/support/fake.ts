/** Test doubles for unit tests: a scripted `fetch` and fake time. */
import type { Timing } from '../../src/index.js';

export interface RecordedRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

export type Step = (request: RecordedRequest, signal: AbortSignal | undefined) => Response | Promise<Response>;

/** A `fetch` that answers each call with the next step; past the script, a stream that stays open until aborted. */
export function scriptedFetch(steps: Step[]): { fetch: typeof fetch; requests: RecordedRequest[] } {
  const requests: RecordedRequest[] = [];
  const fetchFn = (async (input: string | URL | Request, init?: RequestInit) => {
    const request: RecordedRequest = {
      url: String(input),
      method: init?.method ?? 'GET',
      headers: { ...(init?.headers as Record<string, string> | undefined) },
      body: typeof init?.body === 'string' ? init.body : undefined,
    };
    requests.push(request);
    const signal = init?.signal ?? undefined;
    if (signal?.aborted) throw signal.reason;
    const step = steps.shift() ?? (() => sse([], { open: true, signal }));
    return step(request, signal);
  }) as typeof fetch;
  return { fetch: fetchFn, requests };
}

/**
 * A `200 text/event-stream` response of `chunks`. `open`: the stream then stays open
 * until `signal` aborts, like a live stream between events.
 */
export function sse(chunks: string[], options: { open?: boolean; signal?: AbortSignal | undefined } = {}): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!options.open) return controller.close();
      const signal = options.signal;
      if (signal?.aborted) return controller.error(signal.reason);
      signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
    },
  });
  return new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } });
}

export function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

export const refused: Step = () => {
  throw new TypeError('fetch failed');
};

/** Fake time: `sleep` records the delay and resolves at once; `now` is set by the test. */
export function fakeTiming(start = Date.parse('2025-06-01T12:00:00Z'), random = 0.5): Timing & { sleeps: number[]; time: number } {
  const timing = {
    sleeps: [] as number[],
    time: start,
    now: () => timing.time,
    sleep: async (ms: number) => {
      timing.sleeps.push(ms);
      timing.time += ms;
    },
    random: () => random,
  };
  return timing;
}

/** An envelope as the stream carries it, expiring 5 s after `occurredAt`. */
export function envelope(id: string, occurredAt: number, data: Record<string, unknown> = { action: 'hall', kind: 'toggle', value: true }) {
  return {
    id,
    request_id: `req-${id}`,
    type: 'widget.action.v1',
    subject: { kind: 'widget', slug: 'lights' },
    occurred_at: new Date(occurredAt).toISOString(),
    expires_at: new Date(occurredAt + 5000).toISOString(),
    data,
  };
}

export const frame = (position: string, event: unknown): string => `id: ${position}\ndata: ${JSON.stringify(event)}\n\n`;
