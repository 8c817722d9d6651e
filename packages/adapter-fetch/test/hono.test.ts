/**
 * `@tilecast/adapter-fetch` in a Hono host app on `@hono/node-server`, over real HTTP, with
 * the real core on memory storage: Tilecast mounted under `/tilecast` (Hono's `mount()`) and
 * at the root under `/v1` (a middleware that hands every other path back to Hono), between
 * host routes registered before and after it, with the host's own 404 and error handlers.
 */
import type { Server } from 'node:http';
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { mount } from 'hono/mount';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createFetchHandler } from '@tilecast/adapter-fetch';
import { createRecordingTransport, createTilecast, silentLogger, type Tilecast } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { seedFixture, switchboardContent, type Fixture } from '../../../test/support/fixtures.js';

/** What reached the host's error handler. */
const hostErrors: string[] = [];

function hostApp(tilecast: Tilecast): Hono {
  const app = new Hono();
  app.get('/before', (c) => c.text('before'));
  app.post('/api/orders', async (c) => c.json({ order: await c.req.json() }, 201));
  // As the README mounts it: the request as it came (`replaceRequest: false`), the prefix as
  // the handler's `basePath` (a rewritten request cannot carry TRACE).
  app.all('/tilecast/*', mount(createFetchHandler({ '/': tilecast, '/device': tilecast.device }, { basePath: '/tilecast' }), { replaceRequest: false }));
  const atRoot = createFetchHandler({ '/v1': tilecast, '/v1/device': tilecast.device }, { notFound: () => undefined });
  app.use(async (c, next) => (await atRoot(c.req.raw)) ?? next());
  app.get('/after', (c) => c.text('after'));
  app.post('/api/late-orders', async (c) => c.json({ late: await c.req.json() }, 201));
  app.get('/boom', () => {
    throw new Error('host failure');
  });
  app.notFound((c) => c.json({ host: 'no such page' }, 404));
  app.onError((error, c) => {
    hostErrors.push(error.message);
    return c.json({ host: error.message }, 500);
  });
  return app;
}

let tilecast: Tilecast;
let server: Server;
let base: string;
let f: Fixture;

beforeAll(async () => {
  tilecast = createTilecast({ storage: createMemoryStorage(), transport: createRecordingTransport(), logger: silentLogger, purgeIntervalMs: 0 });
  f = await seedFixture(tilecast);
  server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: hostApp(tilecast).fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await tilecast.close();
});

const auth = (token: string) => ({ authorization: `Token ${token}`, 'content-type': 'application/json' });
const patchLights = (path: string) =>
  fetch(`${base}${path}`, { method: 'PATCH', headers: auth(f.acme), body: JSON.stringify({ content: switchboardContent() }) });

describe('adapter-fetch mounted in Hono on @hono/node-server', () => {
  it('the host routes before and after the mounts, its 404 and its error handler keep working', async () => {
    expect(await (await fetch(`${base}/before`)).text()).toBe('before');
    expect(await (await fetch(`${base}/after`)).text()).toBe('after');
    const post = (path: string, body: string) => fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const early = await post('/api/orders', '{"id":1}');
    expect([early.status, await early.json()]).toEqual([201, { order: { id: 1 } }]);
    const late = await post('/api/late-orders', '{"id":2}');
    expect([late.status, await late.json()]).toEqual([201, { late: { id: 2 } }]);
    // A malformed body sent to the host's own route is the host's to refuse, not Tilecast's.
    const malformed = await post('/api/late-orders', '{"id":');
    expect(malformed.status).toBe(500);
    expect(await malformed.json()).toEqual({ host: expect.any(String) });
    const missing = await fetch(`${base}/nowhere`);
    expect([missing.status, await missing.json()]).toEqual([404, { host: 'no such page' }]);
    const boom = await fetch(`${base}/boom`);
    expect([boom.status, await boom.json()]).toEqual([500, { host: 'host failure' }]);
  });

  it('serves PATCH and the OpenAPI document under both mounts; a path it does not serve gets its notFound', async () => {
    // `/tilecast` keeps the default notFound (Tilecast's JSON 404); `/v1` hands it to Hono's.
    const notFound = { '/tilecast': { detail: 'Not Found' }, '/v1': { host: 'no such page' } };
    for (const prefix of ['/tilecast', '/v1'] as const) {
      const reply = await patchLights(`${prefix}/widget/lights`);
      expect(reply.status, prefix).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await reply.json()).toMatchObject({ content: { template: 'switchboard', title: 'Home' } });
      expect((await fetch(`${base}${prefix}/openapi.json`)).status).toBe(200);
      const unknown = await fetch(`${base}${prefix}/no-such-route`);
      expect([unknown.status, await unknown.json()]).toEqual([404, notFound[prefix]]);
    }
  });

  it("TRACE, which no Fetch Request can carry, is the core's 405 under both mounts, and nothing reaches the host's onError or stderr", async () => {
    const errors = vi.spyOn(console, 'error');
    try {
      const before = hostErrors.length;
      for (const path of ['/tilecast/openapi.json', '/tilecast/device/widgets', '/v1/widget/lights']) {
        const reply = await rawRequest(`TRACE ${path} HTTP/1.1`);
        expect(reply, path).toMatch(/^HTTP\/1\.1 405 /);
        expect(reply, path).toContain('{"detail":"Method Not Allowed"}');
      }
      expect(await rawRequest('TRACE /tilecast/openapi.json HTTP/1.1')).toMatch(/\r\nallow: GET, HEAD\r\n/i);
      expect(hostErrors.slice(before)).toEqual([]);
      expect(errors).not.toHaveBeenCalled();
    } finally {
      errors.mockRestore();
    }
  });

  it('HEAD under both mounts: the GET status and headers, no body', async () => {
    for (const prefix of ['/tilecast', '/v1']) {
      const get = await fetch(`${base}${prefix}/openapi.json`);
      const length = (await get.arrayBuffer()).byteLength;
      const head = await rawRequest(`HEAD ${prefix}/openapi.json HTTP/1.1`);
      expect(head, prefix).toMatch(/^HTTP\/1\.1 200 /);
      expect(head, prefix).toMatch(new RegExp(`\\r\\ncontent-length: ${length}\\r\\n`, 'i'));
      expect(head.slice(head.indexOf('\r\n\r\n') + 4), prefix).toBe('');
    }
  });

  it('two Authorization headers, joined by Headers into one value, are a 401 as two are', async () => {
    const path = '/tilecast/widget/lights';
    const one = await rawRequest(`PATCH ${path} HTTP/1.1\r\nAuthorization: Token ${f.acme}`, JSON.stringify({ content: switchboardContent() }));
    expect(one).toMatch(/^HTTP\/1\.1 200 /);
    const two = await rawRequest(
      `PATCH ${path} HTTP/1.1\r\nAuthorization: Token ${f.acme}\r\nAuthorization: Token ${f.acme}`,
      JSON.stringify({ content: switchboardContent() }),
    );
    expect(two).toMatch(/^HTTP\/1\.1 401 /);
    expect(two).toContain('{"detail":"Could not validate credentials"}');
    const device = await rawRequest(`GET /tilecast/device/stream HTTP/1.1\r\nAuthorization: Device ${f.deviceToken}\r\nAuthorization: Device ${f.deviceToken}`);
    expect(device).toMatch(/^HTTP\/1\.1 401 /);
  });

  it('an event stream ends and frees its slot when the client goes away: a fifth stream is allowed again', async () => {
    const open = async () => {
      const controller = new AbortController();
      const reply = await fetch(`${base}/tilecast/events`, { headers: auth(f.acme), signal: controller.signal });
      if (reply.status !== 200) return { status: reply.status, body: await reply.json(), close: () => {} };
      expect(reply.headers.get('content-type')).toMatch(/^text\/event-stream/);
      const reader = reply.body!.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toMatch(/^retry: /);
      return { status: 200, body: undefined, close: () => controller.abort() };
    };
    const streams = [await open(), await open(), await open(), await open()];
    expect(streams.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    const fifth = await open();
    expect([fifth.status, fifth.body]).toEqual([429, { detail: 'Too many event streams' }]);
    streams[0]!.close();
    let again = await open();
    for (let i = 0; i < 50 && again.status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await open();
    }
    expect(again.status).toBe(200);
    for (const stream of [...streams, again]) stream.close();
  });

  it('refuses a chunked body past 64 KiB while reading it: the 413 comes before the body ends', async () => {
    const { port } = new URL(base);
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/tilecast/widget/lights', method: 'PATCH', headers: { ...auth(f.acme), 'transfer-encoding': 'chunked' } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
      req.write('{"content":"');
      // 70 KiB, and the body is never ended: only a reader that stops at the limit answers.
      for (let i = 0; i < 70; i++) req.write('x'.repeat(1024));
      setTimeout(() => reject(new Error('no answer before the end of the body')), 5_000).unref();
    });
    expect(status).toBe(413);
  });

  it('refuses a body whose Content-Length is past 64 KiB before reading it', async () => {
    const reply = await rawRequest(
      `PATCH /v1/widget/lights HTTP/1.1\r\nAuthorization: Token ${f.acme}\r\nContent-Type: application/json\r\nContent-Length: 70000`,
      '{"content":',
      false,
    );
    expect(reply).toMatch(/^HTTP\/1\.1 413 /);
  });
});

/**
 * Writes `head` and `body` on a raw socket (fetch cannot send repeated headers); the answer's
 * text. `complete: false` leaves the body short of its Content-Length (the answer must not wait for it).
 */
function rawRequest(head: string, body = '', complete = true): Promise<string> {
  const { hostname, port } = new URL(base);
  const length = complete && body !== '' ? `\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}` : '';
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${head}${length}\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n${body}`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      // Enough once the head and a JSON body (or an event stream's head) are in.
      if (/\r\n\r\n/.test(text) && (/text\/event-stream/.test(text) || /\r\n\r\n[\s\S]*\}\s*$/.test(text))) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
  });
}
