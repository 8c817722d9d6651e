/**
 * Methods at the edges (docs/contract/limits-and-errors.md#head-on-get-routes, docs/contract/limits-and-errors.md#method-not-allowed), through every adapter:
 * `HEAD` on every `GET` route answers the `GET`'s status and headers with no body; on an
 * event-stream route it opens no stream and takes no slot; any other method Node parses,
 * on a path Tilecast has, is a JSON `405` whose `Allow` lists `HEAD` wherever it lists `GET`.
 */
import { METHODS } from 'node:http';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { createManualClock } from '../support/manual-clock.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { openStore, stores, type TestStore } from '../support/stores.js';

interface WireReply {
  status: number;
  headers: Record<string, string>;
  /** Every byte after the head, up to the server's close. */
  body: string;
}

/**
 * One request with `Connection: close`, read until the server closes the connection: a
 * `HEAD` that sent body bytes, or left a stream open, shows (bounded by `timeoutMs`).
 */
function onTheWire(api: ApiServer, method: string, path: string, headers: Record<string, string> = {}, timeoutMs = 3_000): Promise<WireReply> {
  const url = new URL(api.url + path);
  const lines = [`${method} ${url.pathname}${url.search} HTTP/1.1`, `Host: ${url.host}`, 'Connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${method} ${path}: the connection was still open after ${timeoutMs} ms (${Buffer.concat(chunks).toString('latin1').slice(0, 300)})`));
    }, timeoutMs);
    socket.on('connect', () => socket.write(`${lines.join('\r\n')}\r\n\r\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const [statusLine = '', ...headerLines] = text.slice(0, end).split('\r\n');
      const parsed: Record<string, string> = {};
      for (const line of headerLines) {
        const colon = line.indexOf(':');
        parsed[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers: parsed, body: text.slice(end + 4) });
    });
  });
}

/** The headers a HEAD must repeat from its GET (the framing and the date aside). */
const COMPARED = ['content-type', 'content-length', 'www-authenticate', 'cache-control', 'x-accel-buffering', 'allow'];
const compared = (headers: Record<string, string>) =>
  Object.fromEntries(COMPARED.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]]));

describe.each(adapters)('HTTP methods through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  const open: SseConnection[] = [];

  beforeEach(async () => {
    api = await startApi(adapter, { clock: createManualClock() });
    f = await seedFixture(api.tilecast);
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await api.close();
  });

  it('HEAD on every GET route: the GET status and headers, no body', async () => {
    const publisher = { authorization: `Token ${f.acme}` };
    const phone = { authorization: `Device ${f.deviceToken}` };
    const cases: Array<[string, Record<string, string>]> = [
      ['/openapi.json', {}],
      ['/widget/lights/webhooks', publisher],
      ['/widget/nope/webhooks', publisher],
      ['/widget/lights/webhooks', {}],
      ['/device/widgets', phone],
      ['/device/widgets', {}],
      ['/device/widgets/acme/lights', phone],
      ['/device/widgets/acme/nope', phone],
      ['/device/activities', phone],
      ['/events', {}],
      ['/events?subject=', publisher],
      ['/device/stream', {}],
    ];
    for (const [path, headers] of cases) {
      const get = await onTheWire(api, 'GET', path, headers);
      const head = await onTheWire(api, 'HEAD', path, headers);
      expect({ path, status: head.status, headers: compared(head.headers), body: head.body }).toEqual({
        path,
        status: get.status,
        headers: compared(get.headers),
        body: '',
      });
      expect(head.status, path).not.toBe(405);
    }
  });

  it('HEAD on an event stream: the head of the stream, then the end, with no stream opened', async () => {
    for (const [path, authorization] of [
      ['/events', `Token ${f.acme}`],
      ['/device/stream', `Device ${f.deviceToken}`],
    ] as const) {
      const stream = await openSse(api.url + path, { authorization });
      open.push(stream);
      const head = await onTheWire(api, 'HEAD', path, { authorization });
      expect({ path, status: head.status, body: head.body }).toEqual({ path, status: 200, body: '' });
      expect(head.headers['content-type']).toBe(stream.headers.get('content-type'));
      expect(head.headers['cache-control']).toBe('no-cache, no-transform');
      expect(head.headers['x-accel-buffering']).toBe('no');
      expect(head.headers['content-length']).toBeUndefined();
    }
  });

  it('every other method Node parses, on a known path, is a JSON 405 whose Allow lists HEAD with GET', async () => {
    const paths: Array<[string, string[]]> = [
      ['/openapi.json', ['GET', 'HEAD']],
      ['/widget/lights/webhooks', ['PUT', 'GET', 'HEAD', 'DELETE']],
      ['/widget/lights', ['PATCH']],
      ['/device/presses', ['POST']],
      ['/device/fcm', ['PUT', 'DELETE']],
    ];
    // CONNECT never reaches a route: Node hands it to the server's `connect` listener.
    const methods = METHODS.filter((method) => method !== 'CONNECT');
    for (const [path, allowed] of paths) {
      for (const method of methods.filter((m) => !allowed.includes(m))) {
        const reply = await onTheWire(api, method, path);
        expect({ path, method, status: reply.status, allow: reply.headers.allow }).toEqual({ path, method, status: 405, allow: allowed.join(', ') });
        expect(reply.headers['content-type']).toBe('application/json');
        expect(reply.body, `${method} ${path}`).toBe(method === 'HEAD' ? '' : '{"detail":"Method Not Allowed"}');
      }
    }
  });
});

describe('HEAD on the health routes (mounted by the host, e.g. the reference server at the root)', () => {
  it('answers the GET status and headers without a body', async () => {
    const api = await startApi('node-http');
    try {
      const ask = (method: string, path: string) =>
        api.tilecast.health.handle({ method, path, query: new URLSearchParams(), headers: {}, body: { kind: 'parsed', value: undefined } });
      for (const path of ['/healthz', '/readyz']) {
        const get = await ask('GET', path);
        const head = await ask('HEAD', path);
        if (get.kind !== 'json') throw new Error(`${path}: a ${get.kind} answer`);
        const length = String(Buffer.byteLength(JSON.stringify(get.body)));
        expect(head).toEqual({ kind: 'empty', status: get.status, headers: { ...get.headers, 'content-type': 'application/json', 'content-length': length } });
      }
      expect(await ask('POST', '/healthz')).toMatchObject({ status: 405, headers: { allow: 'GET, HEAD' } });
    } finally {
      await api.close();
    }
  });
});

describe.each(adapters.flatMap((adapter) => stores.map((store) => [adapter, store] as const)))('HEAD /events through %s on %s', (adapter, store) => {
  let api: ApiServer;
  let testStore: TestStore;
  let f: Fixture;
  const open: SseConnection[] = [];

  beforeEach(async () => {
    testStore = await openStore(store);
    api = await startApi(adapter, { clock: createManualClock(), storage: testStore.storage });
    f = await seedFixture(api.tilecast);
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await api.close();
    await testStore.release();
  });

  it('takes no stream slot: four streams stay open beside any number of HEADs, a fifth is still the 429', async () => {
    const authorization = `Token ${f.acme}`;
    for (let i = 0; i < 3; i++) open.push(await openSse(`${api.url}/events`, { authorization }));
    // With three of four slots taken, each HEAD would take the last one if it took any.
    for (let i = 0; i < 6; i++) expect((await onTheWire(api, 'HEAD', '/events', { authorization })).status).toBe(200);
    const fourth = await openSse(`${api.url}/events`, { authorization });
    open.push(fourth);
    expect(fourth.status).toBe(200);
    expect((await request(api, 'GET', '/events', { token: f.acme })).status).toBe(429);
    // A HEAD asks for no slot at all: whether one is free is the next GET's to find out.
    expect((await onTheWire(api, 'HEAD', '/events', { authorization })).status).toBe(200);
  });
});
