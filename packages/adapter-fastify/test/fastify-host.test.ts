/**
 * Tilecast registered in a Fastify host app that has its own routes (before and after the
 * registration), hooks, JSON body parsing, 404 and error handlers, over real HTTP: the
 * host keeps all of them, and Tilecast's endpoints answer exactly as specified.
 */
import { request as httpRequest } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tilecastPlugin } from '@tilecast/adapter-fastify';
import { createTilecast, silentLogger, type Tilecast } from '@tilecast/core';
import type { CoreRequest, CoreResult } from '@tilecast/core/adapter';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { seedFixture, switchboardContent, type Fixture } from '../../../test/support/fixtures.js';
import { openSse, type SseConnection } from '../../../test/support/sse-client.js';

interface Host {
  app: FastifyInstance;
  url: string;
  /** `METHOD path` of every request the host's onRequest hook saw. */
  hooked: string[];
  /** `METHOD path` of every request the host's preHandler hook saw. */
  preHandled: string[];
  /** `METHOD path status` of every response the host's onResponse hook saw. */
  responded: string[];
}

/** A host app as a user would write it, with Tilecast registered under `/tilecast`. */
async function startHost(register: (app: FastifyInstance) => void): Promise<Host> {
  const hooked: string[] = [];
  const preHandled: string[] = [];
  const responded: string[] = [];
  const app = Fastify({ logger: false });
  app.addHook('onRequest', async (request, reply) => {
    hooked.push(`${request.method} ${request.url}`);
    reply.header('x-host-hook', 'ran');
  });
  app.addHook('preHandler', async (request) => void preHandled.push(`${request.method} ${request.url}`));
  app.addHook('onResponse', async (request, reply) => void responded.push(`${request.method} ${request.url} ${reply.statusCode}`));
  app.get('/health', async () => ({ ok: true }));
  app.post('/api/orders', async (request, reply) => reply.code(201).send({ order: request.body }));
  app.get('/boom', async () => {
    throw new Error('host failure');
  });
  register(app);
  app.get('/after', async () => ({ after: true }));
  app.post('/api/late-orders', async (request) => ({ late: request.body }));
  app.setNotFoundHandler((request, reply) => void reply.code(404).send({ host: 'not found', url: request.url }));
  app.setErrorHandler((error: { statusCode?: number; message: string }, _request, reply) => {
    void reply.code(error.statusCode ?? 500).send({ host: 'error', message: error.message });
  });
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, url: address, hooked, preHandled, responded };
}

async function closeHost(host: Host | undefined): Promise<void> {
  if (host === undefined) return;
  host.app.server.closeAllConnections(); // open event streams included
  await host.app.close();
}

async function send(url: string, method: string, options: { headers?: Record<string, string>; body?: string | Uint8Array } = {}) {
  const response = await fetch(url, { method, headers: options.headers, body: options.body });
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: kept as text for the assertion message
  }
  return { status: response.status, headers: response.headers, body };
}

const json = (body: unknown, headers: Record<string, string> = {}) => ({
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

describe('Tilecast in a Fastify host app', () => {
  let host: Host | undefined;
  let tilecast: Tilecast;
  let f: Fixture;
  let base: string;
  const open: SseConnection[] = [];
  const auth = () => ({ authorization: `Token ${f.acme}` });

  beforeEach(async () => {
    tilecast = createTilecast({ storage: createMemoryStorage(), logger: silentLogger, purgeIntervalMs: 0 });
    f = await seedFixture(tilecast);
    host = await startHost((app) => {
      void app.register(tilecastPlugin, { prefix: '/tilecast', handler: tilecast });
      void app.register(tilecastPlugin, { prefix: '/tilecast/device', handler: tilecast.device });
    });
    base = `${host.url}/tilecast`;
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await closeHost(host);
    host = undefined;
    await tilecast.close();
  });

  it('keeps the host routes, before and after the registration, with their JSON body parsing', async () => {
    expect(await send(`${host!.url}/health`, 'GET')).toMatchObject({ status: 200, body: { ok: true } });
    expect(await send(`${host!.url}/after`, 'GET')).toMatchObject({ status: 200, body: { after: true } });
    expect(await send(`${host!.url}/api/orders`, 'POST', json({ n: 1 }))).toMatchObject({ status: 201, body: { order: { n: 1 } } });
    expect(await send(`${host!.url}/api/late-orders`, 'POST', json({ n: 2 }))).toMatchObject({ status: 200, body: { late: { n: 2 } } });
  });

  it("leaves the host's 404 and error handlers in charge of the host's paths", async () => {
    expect(await send(`${host!.url}/nowhere`, 'GET')).toMatchObject({ status: 404, body: { host: 'not found', url: '/nowhere' } });
    expect(await send(`${host!.url}/tilecastle`, 'GET')).toMatchObject({ status: 404, body: { host: 'not found' } });
    expect(await send(`${host!.url}/boom`, 'GET')).toMatchObject({ status: 500, body: { host: 'error', message: 'host failure' } });
    // Bad JSON for the host's own route: the host's parser refuses it, the host's error handler answers.
    const bad = await send(`${host!.url}/api/orders`, 'POST', { headers: { 'content-type': 'application/json' }, body: '{"a":' });
    expect(bad).toMatchObject({ status: 400, body: { host: 'error' } });
    // A type the host has no parser for: Fastify's 415, through the host's error handler.
    expect(await send(`${host!.url}/api/orders`, 'POST', { headers: { 'content-type': 'text/csv' }, body: 'a,b' })).toMatchObject({
      status: 415,
      body: { host: 'error' },
    });
  });

  it("runs the host's onRequest and onResponse hooks for Tilecast's routes and keeps the headers they set", async () => {
    const reply = await send(
      `${base}/activity/build`,
      'PATCH',
      json({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.5 } } }, auth()),
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.5 } } });
    expect(reply.headers.get('x-host-hook')).toBe('ran');
    expect(host!.hooked).toContain('PATCH /tilecast/activity/build');
    // Tilecast reads the body itself, before Fastify's body phases: the preHandler hook is not run for it.
    expect(host!.preHandled).not.toContain('PATCH /tilecast/activity/build');
    for (let i = 0; i < 100 && host!.responded.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(host!.responded).toEqual(['PATCH /tilecast/activity/build 200']);
  });

  it('answers PATCH with the specified statuses and bodies, in the specified order', async () => {
    const url = `${base}/activity/build`;
    const valid = JSON.stringify({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.5 } } });
    const unsupported = await send(url, 'PATCH', { headers: { ...auth(), 'content-type': 'text/plain' }, body: valid });
    expect(unsupported).toMatchObject({ status: 415, body: { detail: 'Unsupported Media Type' } });
    const tooLarge = await send(url, 'PATCH', { headers: { ...auth(), 'content-type': 'application/json' }, body: `"${'x'.repeat(64 * 1024)}"` });
    expect(tooLarge).toMatchObject({ status: 413, body: { detail: 'Request body too large' } });
    expect(await chunkedUpload(url, auth(), 200, 1024)).toBe(413);
    const badJson = await send(url, 'PATCH', { headers: { ...auth(), 'content-type': 'application/json' }, body: '{"state":' });
    expect(badJson).toMatchObject({ status: 422, body: { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] } });
    // 401 comes first, whatever the body, its type or its size; even a media type Fastify itself would refuse.
    const unauthorized = { status: 401, body: { detail: 'Could not validate credentials' } };
    const bearer = { authorization: 'Token nope' };
    expect(await send(url, 'PATCH', { headers: { ...bearer, 'content-type': 'application/json' }, body: '{"state":' })).toMatchObject(unauthorized);
    expect(await send(url, 'PATCH', { headers: { ...bearer, 'content-type': 'text/plain' }, body: 'x' })).toMatchObject(unauthorized);
    expect(await send(url, 'PATCH', { headers: { ...bearer, 'content-type': 'not a media type' }, body: 'x' })).toMatchObject(unauthorized);
    expect(await send(url, 'PATCH', { headers: bearer, body: 'x'.repeat(70 * 1024) })).toMatchObject({ status: 401 });
    // A method the path does not serve: the core's 405 with Allow, not the host's 404.
    const wrongMethod = await send(url, 'GET', { headers: auth() });
    expect(wrongMethod).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } });
    expect(wrongMethod.headers.get('allow')).toBe('PATCH');
  });

  it('serves the webhook map operations and /openapi.json under the prefix', async () => {
    const put = await send(`${base}/widget/lights/webhooks`, 'PUT', json({ webhooks: { '*': { url: 'https://hooks.example/tile' } } }, auth()));
    expect(put.status).toBe(200);
    const got = await send(`${base}/widget/lights/webhooks`, 'GET', { headers: auth() });
    expect(got).toMatchObject({ status: 200, body: { webhooks: { '*': { config: { url: 'https://hooks.example/tile' } } } } });
    expect((await send(`${base}/widget/lights/webhooks`, 'DELETE', { headers: auth() })).status).toBe(204);
    expect(await send(`${base}/widget/lights/webhooks`, 'PUT', { headers: { ...auth(), 'content-type': 'application/json' }, body: '[' })).toMatchObject({
      status: 422,
      body: { detail: [{ loc: ['body'], type: 'json_invalid' }] },
    });
    expect((await send(`${base}/openapi.json`, 'GET')).body).toMatchObject({ openapi: expect.stringMatching(/^3\.1/) });
  });

  it('serves the device API under its own registration', async () => {
    await send(`${base}/widget/lights`, 'PATCH', json({ content: switchboardContent() }, auth()));
    const device = { authorization: `Device ${f.deviceToken}` };
    const stream = await openSse(`${base}/device/stream`, device);
    open.push(stream);
    expect(stream.status).toBe(200);
    expect((await stream.next((frame) => frame.event === 'widget')).event).toBe('widget');
    const press = { owner: 'acme', slug: 'lights', request_id: 'p1', action: 'bell' };
    expect((await send(`${base}/device/presses`, 'POST', json(press, device))).status).toBe(202);
    expect(await send(`${base}/device/presses`, 'POST', json(press, { authorization: 'Device nope' }))).toMatchObject({ status: 401 });
    expect(await send(`${base}/device/presses`, 'POST', { headers: { ...device, 'content-type': 'text/plain' }, body: '{}' })).toMatchObject({
      status: 415,
      body: { detail: 'Unsupported Media Type' },
    });
  });

  it('flushes the event stream at once and frees its slot when the client goes away', async () => {
    const stream = async () => {
      const connection = await openSse(`${base}/events`, auth());
      open.push(connection);
      return connection;
    };
    const first = await stream();
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(first.headers.get('cache-control')).toBe('no-cache, no-transform');
    expect((await first.next()).raw).toBe('retry: 1000\nid: u:0');
    const rest = [await stream(), await stream(), await stream()];
    expect(rest.map((connection) => connection.status)).toEqual([200, 200, 200]);
    const fifth = await stream();
    expect(fifth).toMatchObject({ status: 429, body: { detail: 'Too many event streams' } });
    first.close();
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      const again = await stream();
      status = again.status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(status).toBe(200);
  });
});

describe('paths under the prefix that the handler does not serve', () => {
  let host: Host | undefined;
  afterEach(async () => {
    await closeHost(host);
    host = undefined;
  });

  /** A handler that owns `/mine` only (as a core with route ownership says). */
  const owning = {
    seen: [] as string[],
    owns: (path: string) => path === '/mine',
    async handle(request: CoreRequest): Promise<CoreResult> {
      owning.seen.push(request.path);
      return { kind: 'json', status: 200, body: { path: request.path, query: request.query.toString() } };
    },
  };

  it("go to the host's 404 handler, at a prefix and at the root", async () => {
    for (const prefix of ['/tilecast', undefined]) {
      owning.seen.length = 0;
      host = await startHost((app) => void app.register(tilecastPlugin, { prefix, handler: owning }));
      const base = `${host.url}${prefix ?? ''}`;
      expect(await send(`${base}/mine?a=1`, 'GET')).toMatchObject({ status: 200, body: { path: '/mine', query: 'a=1' } });
      expect(await send(`${base}/yours`, 'POST', json({ a: 1 }))).toMatchObject({ status: 404, body: { host: 'not found' } });
      expect(await send(`${base}/`, 'GET')).toMatchObject({ status: 404, body: { host: 'not found' } });
      // Its body is not parsed on the way (Fastify would refuse this type with a 415 first).
      expect(await send(`${base}/yours`, 'POST', { headers: { 'content-type': 'text/csv' }, body: 'a,b' })).toMatchObject({
        status: 404,
        body: { host: 'not found' },
      });
      expect(await send(`${host.url}/after`, 'GET')).toMatchObject({ status: 200, body: { after: true } });
      expect(await send(`${host.url}/api/orders`, 'POST', json({ n: 1 }))).toMatchObject({ status: 201, body: { order: { n: 1 } } });
      expect(owning.seen).toEqual(['/mine']);
      await closeHost(host);
      host = undefined;
    }
  });
});

/** Sends `chunks` chunks of `size` bytes with chunked encoding; resolves with the status. */
function chunkedUpload(url: string, headers: Record<string, string>, chunks: number, size: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'PATCH', headers: { ...headers, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' || error.code === 'EPIPE' ? undefined : reject(error)));
    req.write('["');
    let sent = 0;
    const pump = () => {
      while (sent < chunks) {
        sent++;
        if (!req.write('x'.repeat(size))) return void req.once('drain', pump);
      }
      req.end('"]');
    };
    pump();
  });
}
