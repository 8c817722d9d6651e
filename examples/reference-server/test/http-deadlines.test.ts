/**
 * The reference server's HTTP deadlines (docs/contract/limits-and-errors.md#body-stall-timeout, docs/contract/limits-and-errors.md#server-timeouts): its settings
 * reach the server, a request whose body stops arriving is answered `408` at the request
 * deadline, and the long-lived streams (`GET /events`, `GET /device/stream`) outlive it.
 */
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@tilecast/core';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { rawSend } from '../../../test/support/raw-socket.js';

let server: ReferenceServer | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

/** A raw connection to the server that sends `text` and collects what comes back. */
const rawSendToServer = (text: string) => rawSend(Number(new URL(server!.url).port), text, sockets);

describe('reference server: HTTP deadlines', () => {
  it('TILECAST_KEEP_ALIVE_TIMEOUT_MS reaches the server (Node announces it in seconds)', async () => {
    server = await startReferenceServer(readConfig({ PORT: '0', TILECAST_KEEP_ALIVE_TIMEOUT_MS: '7000' }), silentLogger);
    const probe = await rawSendToServer('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    await once(probe.socket, 'data');
    expect(probe.received()).toMatch(/\r\nKeep-Alive: timeout=7\r\n/i);
  });

  it('a stalled body is answered 408 at TILECAST_REQUEST_TIMEOUT_MS; the event and device streams opened before outlive it', async () => {
    const config = readConfig({ PORT: '0', TILECAST_REQUEST_TIMEOUT_MS: '400', TILECAST_HEADERS_TIMEOUT_MS: '300', TILECAST_SSE_PING_MS: '50' });
    server = await startReferenceServer(config, silentLogger);
    const token = /API token (\S+)/.exec(server.banner)![1]!;
    const deviceToken = /device token (\S+)/.exec(server.banner)![1]!;
    const events = await rawSendToServer(`GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${token}\r\n\r\n`);
    const phone = await rawSendToServer(`GET /device/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Device ${deviceToken}\r\n\r\n`);
    const started = Date.now();
    const stalled = await rawSendToServer(
      `PATCH /widget/lights HTTP/1.1\r\nHost: x\r\nAuthorization: Token ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"con`,
    );
    const closedAt = await stalled.closed;
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(stalled.received()).toContain('{"detail":"Request Timeout"}');
    // The deadline plus at most one check interval (100 ms here), with slack for a busy machine.
    expect(closedAt - started).toBeGreaterThanOrEqual(390);
    expect(closedAt - started).toBeLessThan(2_000);
    // Both streams are still open and written to after the 408: their next heartbeat arrives.
    for (const stream of [events, phone]) {
      expect(stream.received()).toMatch(/^HTTP\/1\.1 200 /);
      const before = stream.received().length;
      await once(stream.socket, 'data');
      expect(stream.received().length).toBeGreaterThan(before);
      expect(stream.socket.destroyed).toBe(false);
    }
  });
});
