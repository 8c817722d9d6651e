/**
 * Graceful shutdown of the built server (`node dist/main.js`, what `npm start` runs): a
 * SIGTERM with an event stream and a device stream open ends both with a last `retry:` and
 * a complete response, refuses new connections, logs each step and exits 0; a request
 * still in flight is cut once TILECAST_SHUTDOWN_GRACE_MS is over.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { request, type IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { expectLoggedInOrder, logEvents } from './log-events.js';
import { type RunningServer, startBuiltServer } from './built-server.js';

type Running = RunningServer;

async function start(env: Record<string, string>): Promise<Running> {
  const dir = await mkdtemp(join(tmpdir(), 'tilecast-shutdown-'));
  const seed = join(dir, 'seed.json');
  await writeFile(seed, JSON.stringify({ accounts: [{ id: 'acme', token: 'tok_acme_1', devices: [{ id: 'acme-phone', token: 'dev_acme_phone' }] }] }));
  return startBuiltServer({ DATABASE_URL: '', TILECAST_SEED: seed, ...env });
}

interface RawStream {
  text: () => string;
  /** Resolves when the response is over: `complete` is true only when its last chunk arrived (no cut transfer). */
  done: Promise<{ complete: boolean; error: string | null }>;
}

/** A stream read with node:http, which tells a response that ended from one that was cut. */
function openStream(url: string, authorization: string): Promise<RawStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { authorization } }, (res: IncomingMessage) => {
      let text = '';
      let error: string | null = null;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('error', (e) => (error = e.message));
      const done = new Promise<{ complete: boolean; error: string | null }>((settle) => res.on('close', () => settle({ complete: res.complete, error })));
      // Resolved once the opening lines arrived: the stream is registered on the server.
      res.once('data', () => resolve({ text: () => text, done }));
    });
    req.on('error', reject);
    req.end();
  });
}

const refused = (url: string): Promise<boolean> =>
  new Promise((resolve) => {
    const { hostname, port } = new URL(url);
    const socket = connect(Number(port), hostname);
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });

describe('graceful shutdown of the built server', () => {
  const running: ChildProcess[] = [];
  afterEach(() => {
    for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('SIGTERM: /readyz was 200, open streams end with a last retry and a complete response, new connections are refused, each step is logged, exit 0', async () => {
    const server = await start({ TILECAST_SSE_PING_MS: '60000' });
    running.push(server.child);
    const ready = await fetch(`${server.url}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ok' }]);
    const health = await fetch(`${server.url}/healthz`);
    expect([health.status, await health.json()]).toEqual([200, { status: 'ok' }]);

    const events = await openStream(`${server.url}/events`, 'Token tok_acme_1');
    const phone = await openStream(`${server.url}/device/stream`, 'Device dev_acme_phone');
    server.child.kill('SIGTERM');

    for (const stream of [events, phone]) {
      expect(await stream.done).toEqual({ complete: true, error: null });
      expect(stream.text()).toMatch(/\n\nretry: 1000\n\n$/);
    }
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(await refused(server.url)).toBe(true);
    const steps = [
      { msg: 'shutdown: signal received', signal: 'SIGTERM' },
      { msg: 'shutdown: draining, /readyz answers 503' },
      { msg: 'shutdown: stopped accepting connections' },
      { msg: 'shutdown: ended open streams with a last retry', streams: 2 },
      { msg: 'shutdown: requests, pushes and webhook deliveries finished' },
      { msg: 'shutdown: Tilecast closed' },
      { msg: 'shutdown: store closed' },
      { msg: 'shutdown: done, exiting' },
    ];
    expectLoggedInOrder(server.output(), steps);
  });

  it('SIGINT: a request still in flight is cut when TILECAST_SHUTDOWN_GRACE_MS is over, and the process still exits 0', async () => {
    const server = await start({ TILECAST_SHUTDOWN_GRACE_MS: '300' });
    running.push(server.child);
    // A PATCH whose body never ends keeps its connection busy past the grace period.
    const { hostname, port } = new URL(server.url);
    const socket = connect(Number(port), hostname);
    await once(socket, 'connect');
    socket.write(
      'PATCH /widget/none HTTP/1.1\r\nHost: x\r\nAuthorization: Token tok_acme_1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"con',
    );
    const closed = once(socket, 'close');
    socket.on('error', () => {});
    await new Promise((resolve) => setTimeout(resolve, 50)); // the request reached the server (not the thing under test)
    const sent = Date.now();
    server.child.kill('SIGINT');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    await closed;
    expect(Date.now() - sent).toBeGreaterThanOrEqual(250);
    const events = logEvents(server.output());
    expect(events).toContainEqual(expect.objectContaining({ msg: 'shutdown: signal received', signal: 'SIGINT' }));
    expect(events).toContainEqual(expect.objectContaining({ msg: 'shutdown: grace period over, cutting what is left', grace_ms: 300 }));
    expect(events.map((event) => event.msg)).not.toContain('shutdown: requests, pushes and webhook deliveries finished');
    expect(events.map((event) => event.msg)).toContain('shutdown: store closed');
  });

  it('TILECAST_SHUTDOWN_GRACE_MS is validated like the other settings', () => {
    expect(readConfig({}).shutdownGraceMs).toBe(10_000);
    expect(readConfig({ TILECAST_SHUTDOWN_GRACE_MS: '2500' }).shutdownGraceMs).toBe(2500);
    // Past 2^31 - 1 ms a Node timer fires at once: such a grace period would cut everything.
    for (const bad of ['0', '-1', '1.5', 'soon', '2147483648']) {
      expect(() => readConfig({ TILECAST_SHUTDOWN_GRACE_MS: bad })).toThrow(
        `TILECAST_SHUTDOWN_GRACE_MS must be a positive integer (milliseconds, at most 2147483647), got "${bad}"`,
      );
    }
  });
});
