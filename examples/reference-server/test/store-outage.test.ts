/**
 * The reference server on PostgreSQL through a TCP proxy the test freezes or stops, with
 * the deadlines set from the environment (300 ms): while the store does not answer,
 * publishing and presses get `503 {"detail": "Service Unavailable"}` and both streams the
 * outage stream (`200`, only `retry:`), fast; afterwards everything works again by itself.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Logger } from '@tilecast/core';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { openSse } from '../../../test/support/sse-client.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';

const DATABASE_URL = process.env.DATABASE_URL || undefined;
const NEEDS_SERVER = 'needs a real PostgreSQL server: set DATABASE_URL or run one on 127.0.0.1:5432';
const DEADLINE_MS = 300;
/** Every answer during an outage comes within a few deadlines, never after the freeze. */
const FAST_MS = DEADLINE_MS * 8;
const UNAVAILABLE = { status: 503, body: { detail: 'Service Unavailable' } };

if (!DATABASE_URL) {
  describe('reference server during a PostgreSQL outage', () => {
    it.skip(`answers 503 and the outage stream (skipped: ${NEEDS_SERVER})`, () => {});
  });
}

describe.skipIf(!DATABASE_URL)('reference server during a PostgreSQL outage', () => {
  const schema = `so_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const failures: string[] = [];
  const logger: Logger = { info: () => {}, warn: () => {}, error: (message, fields) => void failures.push(`${message} ${JSON.stringify(fields)}`) };
  let proxy: TcpProxy;
  let server: ReferenceServer;
  let token = '';
  let device = '';
  let n = 0;

  const patch = async () => {
    const reply = await fetch(`${server.url}/widget/lights`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { template: 'switchboard', actions: [{ id: 'bell', label: 'Doorbell' }] } }),
    });
    return { status: reply.status, body: await reply.json() };
  };
  const press = async () => {
    const reply = await fetch(`${server.url}/device/presses`, {
      method: 'POST',
      headers: { authorization: `Device ${device}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'outage', slug: 'lights', request_id: `r${n++}`, action: 'bell' }),
    });
    return { status: reply.status, body: await reply.json() };
  };
  const probe = async (path: string) => {
    const reply = await fetch(`${server.url}${path}`);
    return { status: reply.status, body: await reply.json() };
  };
  /** A stream's status and every frame until it ends (bounded), or until its first frame when it stays open. */
  const stream = async (path: string, authorization: string, untilEnd: boolean) => {
    const connection = await openSse(`${server.url}${path}`, { authorization });
    if (untilEnd) await connection.ended;
    else await connection.next();
    connection.close();
    return { status: connection.status, frames: connection.frames.map((frame) => frame.raw) };
  };
  const timed = async <T>(work: () => Promise<T>) => {
    const start = performance.now();
    const value = await work();
    return { value, ms: performance.now() - start };
  };

  /** What every endpoint answers while the store does not. */
  const expectOutageAnswers = async () => {
    const answers = await timed(async () => ({
      patch: await patch(),
      press: await press(),
      events: await stream('/events', `Token ${token}`, true),
      deviceStream: await stream('/device/stream', `Device ${device}`, true),
      readyz: await probe('/readyz'),
      healthz: await probe('/healthz'),
    }));
    expect(answers.value).toEqual({
      patch: UNAVAILABLE,
      press: UNAVAILABLE,
      events: { status: 200, frames: ['retry: 1000'] },
      deviceStream: { status: 200, frames: ['retry: 1000'] },
      readyz: { status: 503, body: { status: 'unavailable', reason: 'storage' } },
      healthz: { status: 200, body: { status: 'ok' } },
    });
    expect(answers.ms).toBeLessThan(FAST_MS * 4);
  };
  const expectNormalAnswers = async () => {
    expect((await patch()).status).toBe(200);
    expect((await press()).status).toBe(202);
    expect(await probe('/readyz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await stream('/events', `Token ${token}`, false)).toEqual({ status: 200, frames: [expect.stringMatching(/^retry: 1000\nid: u:\d+$/)] });
  };

  beforeAll(async () => {
    const target = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const env = {
      PORT: '0',
      DATABASE_URL: proxy.via(DATABASE_URL!),
      TILECAST_DATABASE_SCHEMA: schema,
      TILECAST_PG_CONNECT_TIMEOUT_MS: String(DEADLINE_MS),
      TILECAST_PG_ACQUIRE_TIMEOUT_MS: String(DEADLINE_MS),
      TILECAST_PG_STATEMENT_TIMEOUT_MS: String(DEADLINE_MS),
    };
    server = await startReferenceServer(readConfig(env), logger);
    const m = server.tilecast.management;
    ({ token } = await m.createAccount({ id: 'outage' }));
    ({ token: device } = await m.registerDevice({ id: 'outage-phone', account: 'outage' }));
    await m.createWidget({ account: 'outage', slug: 'lights', template: 'switchboard' });
    expect((await patch()).status).toBe(200);
  });
  afterAll(async () => {
    await proxy?.stop(); // frozen connections end, so closing never waits on one
    await proxy?.start();
    await server?.close();
    await proxy?.close();
    const admin = new pg.Pool({ connectionString: DATABASE_URL });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  it('a frozen database: 503 for publishing and presses, the outage stream for /events (token lookup) and /device/stream', async () => {
    proxy.pause();
    try {
      const single = await timed(patch);
      expect(single.value).toEqual(UNAVAILABLE);
      expect(single.ms).toBeLessThan(FAST_MS);
      await expectOutageAnswers();
    } finally {
      proxy.resume();
    }
    await expectNormalAnswers();
    expect(failures.filter((line) => line.startsWith('request failed'))).toEqual([]);
  });

  it('a stopped database (connections closed, new ones refused): the same answers, then recovery', async () => {
    await proxy.stop();
    try {
      await expectOutageAnswers();
    } finally {
      await proxy.start();
    }
    await expectNormalAnswers();
    expect(failures.filter((line) => line.startsWith('request failed'))).toEqual([]);
  });
});
