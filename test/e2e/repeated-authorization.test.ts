/**
 * Two or more `Authorization` headers are a `401` (docs/contract/publisher-api.md#authorization-header-repeated), on the publisher API, `GET /events`, the webhook-map endpoints and the
 * device API, through every adapter. fetch merges repeated headers, so the requests are
 * written on a raw socket.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { progressUpdate, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';

interface RawReply {
  status: number;
  body: string;
}

/** One request on a raw socket, with `authorizations` as separate header lines; the status and body. */
function rawRequest(url: string, method: string, path: string, authorizations: string[], body?: unknown): Promise<RawReply> {
  const { hostname, port, pathname } = new URL(url);
  const payload = body === undefined ? '' : JSON.stringify(body);
  const lines = [
    `${method} ${pathname.replace(/\/$/, '')}${path} HTTP/1.1`,
    `Host: ${hostname}`,
    ...authorizations.map((value) => `Authorization: ${value}`),
    ...(body === undefined ? [] : ['Content-Type: application/json', `Content-Length: ${Buffer.byteLength(payload)}`]),
    'Connection: close',
  ];
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(`${lines.join('\r\n')}\r\n\r\n${payload}`));
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
      // An event stream does not end by itself: its status line is enough.
      if (/^HTTP\/1\.1 200 /.test(text) && /text\/event-stream/i.test(text)) socket.destroy();
    });
    socket.on('error', reject);
    socket.on('close', () => {
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
      const split = text.indexOf('\r\n\r\n');
      resolve({ status, body: split === -1 ? '' : text.slice(split + 4) });
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
  });
}

const UNAUTHORIZED = '{"detail":"Could not validate credentials"}';

describe.each(adapters)('repeated Authorization headers through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let n = 0;

  /** Every endpoint that authenticates, with a request that succeeds under one good header. */
  const endpoints = (): [string, string, 'publisher' | 'device', (() => unknown) | undefined][] => [
    ['PATCH', '/widget/lights', 'publisher', () => ({ content: switchboardContent() })],
    ['PATCH', '/activity/build', 'publisher', () => progressUpdate()],
    ['PUT', '/widget/lights/webhooks', 'publisher', () => ({ webhooks: {} })],
    ['GET', '/widget/lights/webhooks', 'publisher', undefined],
    ['DELETE', '/widget/lights/webhooks', 'publisher', undefined],
    ['GET', '/events', 'publisher', undefined],
    ['POST', '/device/presses', 'device', () => ({ owner: 'acme', slug: 'lights', request_id: `r${n++}`, action: 'bell' })],
    ['GET', '/device/stream', 'device', undefined],
  ];

  beforeAll(async () => {
    api = await startApi(adapter);
    f = await seedFixture(api.tilecast);
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } })).status).toBe(200);
  });
  afterAll(() => api.close());

  it('one good header is accepted on every endpoint (the requests below are otherwise valid)', async () => {
    for (const [method, path, kind, body] of endpoints()) {
      const good = kind === 'publisher' ? `Token ${f.acme}` : `Device ${f.deviceToken}`;
      const reply = await rawRequest(api.url, method, path, [good], body?.());
      expect([method, path, reply.status]).toEqual([method, path, method === 'POST' ? 202 : method === 'DELETE' ? 204 : 200]);
    }
  });

  it.each([
    ['good, then bad', (good: string) => [good, `${good.split(' ')[0]} bad_token`]],
    ['bad, then good', (good: string) => [`${good.split(' ')[0]} bad_token`, good]],
    ['the same good one twice', (good: string) => [good, good]],
    ['three good ones', (good: string) => [good, good, good]],
    ['good, then empty', (good: string) => [good, '']],
  ])('401 for %s, on every endpoint, also with a credential the instance remembers', async (_, headers) => {
    for (const [method, path, kind, body] of endpoints()) {
      const good = kind === 'publisher' ? `Token ${f.acme}` : `Device ${f.deviceToken}`;
      const reply = await rawRequest(api.url, method, path, headers(good), body?.());
      expect([method, path, reply.status, reply.body]).toEqual([method, path, 401, UNAUTHORIZED]);
    }
  });
});
