/**
 * Values a store cannot hold (a NUL, a lone surrogate) never reach it, and the answer is
 * the same on every storage (docs/contract/limits-and-errors.md#unholdable-values): in a path
 * parameter a `404` with the route's own detail, in a credential a `401`, in a
 * `Last-Event-ID` an unrecognised position, in a press body a `422` field error.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { progressUpdate, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { openStore, stores, type TestStore } from '../support/stores.js';

/** Path segments whose decoding holds a NUL or a lone surrogate (or cannot be decoded at all). */
const SLUGS = ['a%00b', '%00', 'lights%00', '%ED%A0%80', 'a%ED%A0%80b', 'lights%ED%B0%80', '%C0%80'];

/** Sends `head` (request line and headers, CRLF-separated, no final blank line) on a raw socket; the status code. */
function rawStatus(url: string, head: string): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(Buffer.from(`${head}\r\nHost: ${hostname}\r\nConnection: close\r\n\r\n`, 'latin1')));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
  });
}

describe.each(stores.flatMap((store) => adapters.map((adapter) => [store, adapter] as const)))('unholdable values on %s through %s', (store, adapter) => {
  let api: ApiServer;
  let opened: TestStore;
  let f: Fixture;
  /** Path of the service on the raw socket (express mounts it under a prefix). */
  let base: string;

  beforeAll(async () => {
    opened = await openStore(store);
    api = await startApi(adapter, { storage: opened.storage });
    f = await seedFixture(api.tilecast);
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } })).status).toBe(200);
    base = new URL(api.url).pathname.replace(/\/$/, '');
  });
  afterAll(async () => {
    await api?.close();
    await opened?.release();
  });

  describe('in a path parameter: 404 with the route’s detail', () => {
    it.each(SLUGS)('PATCH /widget/%s', async (slug) => {
      const reply = await request(api, 'PATCH', `/widget/${slug}`, { token: f.acme, body: { content: switchboardContent() } });
      expect([reply.status, reply.body]).toEqual([404, { detail: 'Widget not found' }]);
    });

    it.each(SLUGS)('PATCH /activity/%s', async (slug) => {
      const reply = await request(api, 'PATCH', `/activity/${slug}`, { token: f.acme, body: progressUpdate() });
      expect([reply.status, reply.body]).toEqual([404, { detail: 'Activity not found' }]);
    });

    it.each(SLUGS)('PUT, GET and DELETE /widget/%s/webhooks', async (slug) => {
      for (const method of ['PUT', 'GET', 'DELETE']) {
        const body = method === 'PUT' ? { webhooks: {} } : undefined;
        const reply = await request(api, method, `/widget/${slug}/webhooks`, { token: f.acme, body });
        expect([method, reply.status, reply.body]).toEqual([method, 404, { detail: 'Widget not found' }]);
      }
    });

    it.each(['/widget/a\0b', '/widget/a\ud800b', '/widget/\udfff/webhooks'])('a raw %j handed to the core (as an adapter could) is a 404 too', async (path) => {
      const result = await api.tilecast.handle({
        method: path.endsWith('webhooks') ? 'GET' : 'PATCH',
        path,
        query: new URLSearchParams(),
        headers: { authorization: `Token ${f.acme}`, 'content-type': 'application/json' },
        body: { kind: 'parsed', value: { content: switchboardContent() } },
      });
      expect(result).toMatchObject({ kind: 'json', status: 404, body: { detail: 'Widget not found' } });
    });

    it('the order of answers holds: 401 and 422 still come before the 404', async () => {
      expect((await request(api, 'PATCH', '/widget/a%00b', { token: 'tok_unknown', body: { content: switchboardContent() } })).status).toBe(401);
      expect((await request(api, 'PATCH', '/activity/a%00b', { token: f.acme, body: { state: 'NOPE' } })).status).toBe(422);
    });

    it('the widget itself was never touched', async () => {
      const widget = await api.storage.getWidget('acme', 'lights');
      expect(widget?.content).toMatchObject({ template: 'switchboard' });
    });
  });

  describe('in a credential: 401', () => {
    it.each([
      ['a NUL in a publisher token', 'Token tok_\0x'],
      ['a lone surrogate in a publisher token', 'Token tok_\ud800x'],
      ['a NUL in a device token', 'Device dev_\0x'],
      ['a lone surrogate in a device token', 'Device dev_\udc00x'],
    ])('%s (handed to the core as an adapter could)', async (_, authorization) => {
      const path = authorization.startsWith('Device') ? '/presses' : '/widget/lights/webhooks';
      const handler = authorization.startsWith('Device') ? api.tilecast.device : api.tilecast;
      const result = await handler.handle({
        method: authorization.startsWith('Device') ? 'POST' : 'GET',
        path,
        query: new URLSearchParams(),
        headers: { authorization, 'content-type': 'application/json' },
        body: { kind: 'parsed', value: { owner: 'acme', slug: 'lights', request_id: 'r', action: 'bell' } },
      });
      expect(result).toMatchObject({ kind: 'json', status: 401, body: { detail: 'Could not validate credentials' } });
    });

    it.each([
      ['GET', '/widget/lights/webhooks', 'Token'],
      ['GET', '/events', 'Token'],
      ['GET', '/device/stream', 'Device'],
      ['POST', '/device/presses', 'Device'],
    ])('%s %s: a NUL is refused before the service (400), bytes of a surrogate or overlong NUL are a 401', async (method, path, scheme) => {
      const target = `${method} ${base}${path} HTTP/1.1`;
      // Node's parser refuses a NUL in a header value itself: it never reaches an adapter.
      expect((await rawStatus(api.url, `${target}\r\nAuthorization: ${scheme} tok_\0x`)).status).toBe(400);
      for (const bytes of ['\xed\xa0\x80', '\xc0\x80']) {
        const reply = await rawStatus(api.url, `${target}\r\nAuthorization: ${scheme} tok_${bytes}x\r\nContent-Length: 0`);
        expect(reply.status).toBe(401);
        expect(reply.text).toContain('{"detail":"Could not validate credentials"}');
      }
    });
  });

  describe('in Last-Event-ID: unrecognised (every unexpired event is replayed)', () => {
    it.each(['u:1\0', 'u:\ud8001', '\0', 'u:1\ud800'])('%j', async (lastEventId) => {
      const pressed = await request(api, 'POST', '/device/presses', {
        authorization: `Device ${f.deviceToken}`,
        body: { owner: 'acme', slug: 'lights', request_id: 'seen', action: 'bell' },
      });
      expect(pressed.status).toBe(202);
      const result = await api.tilecast.handle({
        method: 'GET',
        path: '/events',
        query: new URLSearchParams(),
        headers: { authorization: `Token ${f.acme}`, 'last-event-id': lastEventId },
        body: { kind: 'parsed', value: undefined },
      });
      if (result.kind !== 'sse') throw new Error(`not a stream: ${JSON.stringify(result)}`);
      const controller = new AbortController();
      let written = '';
      const running = result.run({ bufferedBytes: 0, signal: controller.signal, write: async (text) => void (written += text), end: () => controller.abort() });
      for (let i = 0; i < 200 && !written.includes(pressed.body.event_id); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      controller.abort();
      await running;
      expect(written).toMatch(/^retry: \d+\nid: u:0\n/);
      expect(written).toContain(pressed.body.event_id);
    });
  });

  describe('in a press body: 422 string_unicode at the field', () => {
    it.each(['owner', 'slug', 'action', 'request_id'])('%s', async (field) => {
      const before = await api.storage.lastEventPosition('acme');
      for (const bad of ['\\u0000', 'x\\u0000', '\\ud800', 'x\\udfffy']) {
        const fields: Record<string, string> = { owner: '"acme"', slug: '"lights"', request_id: '"r1"', action: '"bell"', [field]: `"${bad}"` };
        const raw = `{${Object.entries(fields)
          .map(([key, value]) => `"${key}":${value}`)
          .join(',')}}`;
        const reply = await request(api, 'POST', '/device/presses', { authorization: `Device ${f.deviceToken}`, raw });
        expect(reply.status).toBe(422);
        expect(reply.body.detail).toEqual([expect.objectContaining({ loc: ['body', field], type: 'string_unicode' })]);
      }
      expect(await api.storage.lastEventPosition('acme')).toBe(before);
    });
  });
});
