/**
 * The deadlines `listen()` sets (docs/contract/limits-and-errors.md#body-stall-timeout, docs/contract/limits-and-errors.md#server-timeouts): a request whose
 * body (or headers) stops arriving is answered `408` within its deadline, not after Node's
 * 5 minutes (checked every 30 s); an idle kept-alive connection closes after its own
 * deadline; and a long-lived response (an event stream) outlives the request deadline,
 * since a request ends when its body is complete.
 */
import { once } from 'node:events';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createTilecast, silentLogger, type Tilecast } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { DEFAULT_TIMEOUTS, listen, mount, type ListenOptions, type RunningServer } from '../src/index.js';
import { rawSend } from '../../../test/support/raw-socket.js';

let server: RunningServer | undefined;
let tilecast: Tilecast | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  await tilecast?.close();
  server = tilecast = undefined;
});

/** Tilecast (the owner's API, an account `acme` with token `tok_acme`) served by `listen(options)`. */
async function serve(options: ListenOptions = {}): Promise<{ port: number }> {
  tilecast = createTilecast({ storage: createMemoryStorage(), logger: silentLogger, sse: { pingMs: 50, lifetimeMs: 60_000 } });
  await tilecast.management.createAccount({ id: 'acme', token: 'tok_acme' });
  server = await listen(mount({ '/': tilecast }), options);
  return { port: Number(new URL(server.url).port) };
}

const STALLED_PATCH =
  'PATCH /widget/lights HTTP/1.1\r\nHost: x\r\nAuthorization: Token tok_acme\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"con';

describe('listen(): request, header and keep-alive deadlines', () => {
  it('sets deliberate defaults: 20 s for a request, 10 s for its headers, 5 s of keep-alive', async () => {
    await serve();
    expect(DEFAULT_TIMEOUTS).toEqual({ requestTimeoutMs: 20_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 });
    expect(server!.server.requestTimeout).toBe(20_000);
    expect(server!.server.headersTimeout).toBe(10_000);
    expect(server!.server.keepAliveTimeout).toBe(5_000);
  });

  it('a body that stops arriving is answered 408 (JSON) at the request deadline, and the connection closes', async () => {
    const { port } = await serve({ requestTimeoutMs: 400, headersTimeoutMs: 300 });
    const started = Date.now();
    const stalled = await rawSend(port, STALLED_PATCH, sockets);
    const closedAt = await stalled.closed;
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(stalled.received()).toContain('{"detail":"Request Timeout"}');
    // The deadline plus at most one check interval (a quarter of the shorter deadline), with slack for a busy machine.
    expect(closedAt - started).toBeGreaterThanOrEqual(390);
    expect(closedAt - started).toBeLessThan(2_000);
  });

  it('headers that stop arriving are answered 408 at the header deadline', async () => {
    const { port } = await serve({ requestTimeoutMs: 5_000, headersTimeoutMs: 300 });
    const started = Date.now();
    const stalled = await rawSend(port, 'PATCH /widget/lights HTTP/1.1\r\nHost: x\r\nAuthor', sockets);
    const closedAt = await stalled.closed;
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAt - started).toBeLessThan(2_000);
  });

  it('an idle kept-alive connection is closed after the keep-alive deadline', async () => {
    const { port } = await serve({ keepAliveTimeoutMs: 300 });
    const client = await rawSend(port, 'GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n', sockets);
    const answeredAt = await new Promise<number>((resolve) => client.socket.once('data', () => resolve(Date.now())));
    const closedAt = await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    expect(closedAt - answeredAt).toBeGreaterThanOrEqual(250);
    // Node keeps the socket 1 s past the deadline it announces (`Keep-Alive: timeout=`), against races with clients.
    expect(closedAt - answeredAt).toBeLessThan(3_000);
  });

  it('an event stream outlives the request deadline: its request ended with its headers', async () => {
    const { port } = await serve({ requestTimeoutMs: 300, headersTimeoutMs: 200 });
    const stream = await rawSend(port, 'GET /events HTTP/1.1\r\nHost: x\r\nAuthorization: Token tok_acme\r\n\r\n', sockets);
    // A stalled request opened after the stream: its 408 proves the deadline passed for the stream too.
    const stalled = await rawSend(port, STALLED_PATCH, sockets);
    await stalled.closed;
    expect(stalled.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(stream.received()).toMatch(/^HTTP\/1\.1 200 /);
    // Still open and still written to: the next heartbeat arrives after the 408.
    const before = stream.received().length;
    await once(stream.socket, 'data');
    expect(stream.received().length).toBeGreaterThan(before);
    expect(stream.received()).toContain(': ping');
    expect(stream.socket.destroyed).toBe(false);
  });
});
