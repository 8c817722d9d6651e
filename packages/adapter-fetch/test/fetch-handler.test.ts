/**
 * The Fetch handler called directly with `Request`s and a fake core: mounts, the body read
 * under its limit, and the event stream's sink (its queue, its end when the client leaves).
 */
import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '@tilecast/adapter-fetch';
import type { CoreRequest, CoreResult, SseSink } from '@tilecast/core/adapter';

/** A fake core: keeps the requests and hands an event stream's sink to the test. */
function fakeCore(answer: (request: CoreRequest) => CoreResult | Promise<CoreResult> = () => ({ kind: 'empty', status: 204 })) {
  const seen: CoreRequest[] = [];
  return { seen, handle: async (request: CoreRequest) => (seen.push(request), answer(request)) };
}

/** An event stream whose sink the test drives; its run lasts until the sink's signal aborts. */
function streamCore() {
  let resolveSink!: (sink: SseSink) => void;
  const sink = new Promise<SseSink>((resolve) => {
    resolveSink = resolve;
  });
  const state = { runEnded: false };
  const core = fakeCore(() => ({
    kind: 'sse',
    run: async (given) => {
      resolveSink(given);
      await new Promise<void>((resolve) => given.signal.addEventListener('abort', () => resolve(), { once: true }));
      state.runEnded = true;
    },
  }));
  return { core, sink, state };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('createFetchHandler', () => {
  it('routes by the longest prefix under basePath, with the path relative to it, the query and lower-case headers', async () => {
    const root = fakeCore();
    const device = fakeCore();
    const handler = createFetchHandler({ '/': root, '/device': device }, { basePath: '/api/' });
    await handler(new Request('http://host/api/device/stream?x=1', { headers: { 'X-Custom': 'v' } }));
    await handler(new Request('http://host/api/devices?a=1&a=2', { method: 'PATCH' }));
    await handler(new Request('http://host/api'));
    expect(device.seen.map((r) => [r.method, r.path, r.query.toString(), r.headers['x-custom']])).toEqual([['GET', '/stream', 'x=1', 'v']]);
    expect(root.seen.map((r) => [r.method, r.path, r.query.toString()])).toEqual([
      ['PATCH', '/devices', 'a=1&a=2'],
      ['GET', '/', ''],
    ]);
  });

  it("outside every mount: the core's JSON 404 by default, or what notFound answers (undefined lets the host go on)", async () => {
    const core = fakeCore();
    const own = await createFetchHandler(core, { basePath: '/api' })(new Request('http://host/apiary'));
    expect([own?.status, await own?.json()]).toEqual([404, { detail: 'Not Found' }]);
    expect(await createFetchHandler(core, { basePath: '/api', notFound: () => undefined })(new Request('http://host/other'))).toBeUndefined();
    const host = await createFetchHandler(core, { basePath: '/api', notFound: () => new Response('host', { status: 418 }) })(new Request('http://host/'));
    expect(host.status).toBe(418);
    expect(core.seen).toHaveLength(0);
  });

  it('reads a body incrementally and stops past the limit without reading the rest', async () => {
    let pulls = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(4).fill(0x61));
      },
    });
    const core = fakeCore();
    await createFetchHandler(core)(new Request('http://host/x', { method: 'POST', body: endless, duplex: 'half' } as RequestInit));
    expect(core.seen[0]!.body.kind).toBe('raw');
    const body = core.seen[0]!.body as Extract<CoreRequest['body'], { kind: 'raw' }>;
    expect(await body.read(10)).toBe('too_large');
    expect(pulls).toBeLessThan(6);
  });

  it('reads a whole body in chunks, and an announced length past the limit is refused before reading', async () => {
    const core = fakeCore();
    const handler = createFetchHandler(core);
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const text of ['{"a":', '"wörld"', '}']) controller.enqueue(new TextEncoder().encode(text));
        controller.close();
      },
    });
    await handler(new Request('http://host/x', { method: 'POST', body: chunks, duplex: 'half' } as RequestInit));
    await handler(new Request('http://host/x', { method: 'POST', body: 'tiny', headers: { 'content-length': '100' } }));
    const read = (i: number, limit: number) => (core.seen[i]!.body as Extract<CoreRequest['body'], { kind: 'raw' }>).read(limit);
    expect(new TextDecoder().decode((await read(0, 100)) as Uint8Array)).toBe('{"a":"wörld"}');
    expect(await read(1, 99)).toBe('too_large');
  });

  it('an event stream: its headers, and bufferedBytes is what the client has not taken yet', async () => {
    const { core, sink } = streamCore();
    const response = await createFetchHandler(core)(new Request('http://host/events'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform');
    const s = await sink;
    expect(s.bufferedBytes).toBe(0);
    await s.write('a'.repeat(1000));
    await s.write('ü'.repeat(250)); // 500 bytes
    expect(s.bufferedBytes).toBe(1500);
    const reader = response.body!.getReader();
    expect((await reader.read()).value?.byteLength).toBe(1000);
    expect(s.bufferedBytes).toBe(500);
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('ü'.repeat(250));
    expect(s.bufferedBytes).toBe(0);
  });

  it('an event stream ends when the client cancels its body: the signal aborts, the run ends, later writes are dropped', async () => {
    const { core, sink, state } = streamCore();
    const response = await createFetchHandler(core)(new Request('http://host/events'));
    const s = await sink;
    await s.write('data: 1\n\n');
    await response.body!.cancel();
    expect(s.signal.aborted).toBe(true);
    expect(s.bufferedBytes).toBe(0);
    await s.write('data: 2\n\n');
    await settle();
    expect(state.runEnded).toBe(true);
  });

  it("an event stream ends when the request's signal aborts, and when the core ends it", async () => {
    const aborting = streamCore();
    const client = new AbortController();
    const gone = await createFetchHandler(aborting.core)(new Request('http://host/events', { signal: client.signal }));
    const s = await aborting.sink;
    client.abort();
    expect(s.signal.aborted).toBe(true);
    expect((await gone.body!.getReader().read()).done).toBe(true);
    await settle();
    expect(aborting.state.runEnded).toBe(true);

    const ending = streamCore();
    const ended = await createFetchHandler(ending.core)(new Request('http://host/events'));
    const t = await ending.sink;
    await t.write('data: last\n\n');
    t.end();
    t.end(); // idempotent
    expect(t.signal.aborted).toBe(true);
    expect(await ended.text()).toBe('data: last\n\n');
  });
});
