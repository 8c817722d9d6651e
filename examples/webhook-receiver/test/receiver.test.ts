import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { signatureHeader } from '../../../packages/core/src/webhooks/signing.js';
import { createWebhookReceiver } from '../src/receiver.js';

const secret = 'whsec_example_0123456789';
const publicBaseUrl = 'https://hooks.example.com';

describe('webhook receiver example', () => {
  let server: Server;
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  async function start(events: [string, unknown][]) {
    server = createServer(createWebhookReceiver({ secret, publicBaseUrl, onEvent: (id, body) => void events.push([id, body]) }));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  const deliver = (base: string, eventId: string, body: string, overrides: { timestamp?: number; path?: string; signedPath?: string } = {}) => {
    const timestamp = overrides.timestamp ?? Math.floor(Date.now() / 1000);
    const path = overrides.path ?? '/hooks/lights?x=1';
    const signature = signatureHeader(secret, { timestamp, method: 'POST', url: publicBaseUrl + (overrides.signedPath ?? path), body, eventId });
    return fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': eventId, 'x-svc-timestamp': String(timestamp), 'x-svc-signature': signature },
      body,
    });
  };

  it('accepts a signed delivery once and answers a retry without processing it again', async () => {
    const events: [string, unknown][] = [];
    const base = await start(events);
    const body = JSON.stringify({ id: 'e1', type: 'widget.action.v1', data: { action: 'hall', kind: 'toggle', value: true } });
    expect((await deliver(base, 'e1', body)).status).toBe(200);
    expect((await deliver(base, 'e1', body)).status).toBe(200);
    expect(events).toEqual([['e1', JSON.parse(body)]]);
  });

  it('refuses a tampered body, another URL and an old timestamp with 401', async () => {
    const events: [string, unknown][] = [];
    const base = await start(events);
    const signed = await deliver(base, 'e2', '{"a":1}', { signedPath: '/elsewhere' });
    expect(signed.status).toBe(401);
    expect((await deliver(base, 'e3', '{"a":1}', { timestamp: Math.floor(Date.now() / 1000) - 301 })).status).toBe(401);
    const unsigned = await fetch(`${base}/hooks`, { method: 'POST', body: '{}' });
    expect(unsigned.status).toBe(401);
    expect(events).toEqual([]);
  });
});
