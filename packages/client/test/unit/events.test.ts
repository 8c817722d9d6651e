import { describe, expect, it } from 'vitest';
import { backoffDelay, createClient, TilecastApiError, type TilecastEvent } from '../../src/index.js';
import { envelope, fakeTiming, frame, json, refused, scriptedFetch, sse, type Step } from '../support/fake.js';

const T0 = Date.parse('2025-06-01T12:00:00Z');

function setup(steps: Step[], options: { dedupeSize?: number } = {}) {
  const { fetch, requests } = scriptedFetch(steps);
  const timing = fakeTiming(T0);
  const client = createClient({ baseUrl: 'http://127.0.0.1:9/', token: 'tok', fetch, timing, ...options });
  return { client, requests, timing };
}

/** Takes `count` events, then stops the iterator (so a test can never hang on a live stream). */
async function take(iterator: AsyncGenerator<TilecastEvent>, count: number): Promise<TilecastEvent[]> {
  const events: TilecastEvent[] = [];
  if (count === 0) return events;
  for await (const event of iterator) {
    events.push(event);
    if (events.length === count) break;
  }
  return events;
}

describe('events(): reconnecting, resuming, de-duplicating', () => {
  it('sends the token, the filters and no Last-Event-ID on the first connection', async () => {
    const { client, requests } = setup([() => sse(['retry: 1000\nid: u:0\n\n', frame('u:1', envelope('e1', T0))])]);
    await take(client.events({ types: ['widget.action.v1'], subject: ['widget/lights', 'widget/door'] }), 1);
    expect(requests[0]!.url).toBe('http://127.0.0.1:9/events?types=widget.action.v1&subject=widget%2Flights&subject=widget%2Fdoor');
    expect(requests[0]!.headers).toMatchObject({ authorization: 'Token tok', accept: 'text/event-stream' });
    expect(requests[0]!.headers['last-event-id']).toBeUndefined();
  });

  it('reconnects after the retry: delay when the server closes, resuming from the last id unchanged', async () => {
    const { client, requests, timing } = setup([
      () => sse(['retry: 2500\nid: u:0\n\n', frame('u:1', envelope('e1', T0)), frame('u:2', envelope('e2', T0))]),
      () => sse(['retry: 2500\nid: u:2\n\n', frame('u:3', envelope('e3', T0))]),
    ]);
    const events = await take(client.events(), 3);
    expect(events.map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
    expect(timing.sleeps).toEqual([2500]);
    expect(requests[1]!.headers['last-event-id']).toBe('u:2');
  });

  it('resumes from an id without data (the stream opening) and sends an unrecognised id back as it was', async () => {
    const { client, requests } = setup([() => sse(['retry: 1000\nid: not a number\n\n']), () => sse([frame('u:1', envelope('e1', T0))])]);
    await take(client.events({ lastEventId: 'saved' }), 1);
    expect(requests.map((r) => r.headers['last-event-id'])).toEqual(['saved', 'not a number']);
  });

  it('yields an event replayed after a reconnect only once', async () => {
    const { client } = setup([
      () => sse([frame('u:1', envelope('e1', T0)), frame('u:2', envelope('e2', T0))]),
      () => sse([frame('u:1', envelope('e1', T0)), frame('u:2', envelope('e2', T0)), frame('u:3', envelope('e3', T0))]),
    ]);
    expect((await take(client.events(), 3)).map((e) => e.id)).toEqual(['e1', 'e2', 'e3']);
  });

  it('remembers a bounded number of ids: the oldest falls out', async () => {
    const { client } = setup(
      [
        () => sse([frame('u:1', envelope('e1', T0)), frame('u:2', envelope('e2', T0)), frame('u:3', envelope('e3', T0))]),
        () => sse([frame('u:1', envelope('e1', T0))]),
      ],
      { dedupeSize: 2 },
    );
    expect((await take(client.events(), 4)).map((e) => e.id)).toEqual(['e1', 'e2', 'e3', 'e1']);
  });

  it('drops an event whose expires_at has passed', async () => {
    const { client, timing } = setup([
      () => sse([frame('u:1', envelope('old', T0 - 5000)), frame('u:2', envelope('late', T0 - 4999)), frame('u:3', envelope('new', T0))]),
    ]);
    timing.time = T0;
    expect((await take(client.events(), 2)).map((e) => e.id)).toEqual(['late', 'new']);
  });

  it('skips data that is not an envelope', async () => {
    const { client } = setup([() => sse(['data: not json\n\n', 'data: {"id":1}\n\n', frame('u:1', envelope('e1', T0))])]);
    expect((await take(client.events(), 1)).map((e) => e.id)).toEqual(['e1']);
  });

  it('backs off with jitter, doubling up to the cap, while attempts fail; a success resets it', async () => {
    const { client, timing } = setup([
      refused,
      () => json(503, { detail: 'down' }),
      () => json(408, { detail: 'slow' }),
      refused,
      refused,
      refused,
      () => sse(['retry: 1000\n\n']),
      refused,
      () => sse([frame('u:1', envelope('e1', T0 + 60_000))]),
    ]);
    await take(client.events(), 1);
    // random() = 0.5: three quarters of 1 s, 2 s, 4 s, 8 s, 16 s, then capped at 30 s; the outage stream (retry only) waits 1 s.
    expect(timing.sleeps).toEqual([750, 1500, 3000, 6000, 12_000, 22_500, 1000, 750]);
  });

  it('keeps the back-off between half and all of its ceiling', () => {
    const options = { initialDelayMs: 1000, maxDelayMs: 30_000 };
    expect(backoffDelay(1, options, 0)).toBe(500);
    expect(backoffDelay(1, options, 0.999)).toBe(1000);
    expect(backoffDelay(40, options, 0.999)).toBe(29_985);
    expect(backoffDelay(40, options, 0)).toBe(15_000);
  });

  it.each([
    [401, 'Could not validate credentials'],
    [402, 'No active subscription was found'],
    [422, 'Invalid subject filter: lights'],
    [429, 'Too many event streams'],
    [404, 'Not Found'],
  ])('surfaces %i as a TilecastApiError instead of retrying', async (status, detail) => {
    const { client, requests } = setup([() => json(status, { detail })]);
    const error = await take(client.events(), 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TilecastApiError);
    expect(error).toMatchObject({ status, detail, request: 'GET /events' });
    expect(requests).toHaveLength(1);
  });

  it('ends quietly when the signal aborts, closing the open stream', async () => {
    const stop = new AbortController();
    let streamSignal: AbortSignal | undefined;
    const { client } = setup([(_request, signal) => ((streamSignal = signal), sse([frame('u:1', envelope('e1', T0))], { open: true, signal }))]);
    const seen: string[] = [];
    for await (const event of client.events({ signal: stop.signal })) {
      seen.push(event.id);
      stop.abort();
    }
    expect(seen).toEqual(['e1']);
    expect(streamSignal?.aborted).toBe(true);
  });

  it('closes the stream when the consumer breaks out', async () => {
    let streamSignal: AbortSignal | undefined;
    const { client } = setup([(_request, signal) => ((streamSignal = signal), sse([frame('u:1', envelope('e1', T0))], { open: true, signal }))]);
    await take(client.events(), 1);
    expect(streamSignal?.aborted).toBe(true);
  });

  it('does not connect at all with an aborted signal', async () => {
    const { client, requests } = setup([]);
    expect(await take(client.events({ signal: AbortSignal.abort() }), 1)).toEqual([]);
    expect(requests).toHaveLength(0);
  });
});
