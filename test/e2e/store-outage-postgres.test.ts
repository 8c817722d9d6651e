/**
 * node:http and Express on PostgreSQL through a TCP proxy the test freezes or stops (deadlines
 * injected at 300 ms): `503 {"detail": "Service Unavailable"}` for publishing and presses,
 * the outage stream for `GET /events` (the token lookup is what fails), and normal
 * answers again afterwards. (The same with the reference server's settings:
 * examples/reference-server/test/store-outage.test.ts. Not every adapter: a slow suite,
 * and the outage answers through every adapter are store-outage.test.ts's.)
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPostgresStorage, migrate, type PostgresStorage } from '@tilecast/storage-postgres';
import { request, startApi, type AdapterName, type ApiServer } from '../support/api-server.js';
import { seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { openSse } from '../support/sse-client.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

const DATABASE_URL = process.env.DATABASE_URL || undefined;
const NEEDS_SERVER = 'needs a real PostgreSQL server: set DATABASE_URL or run one on 127.0.0.1:5432';
const DEADLINE_MS = 300;
const UNAVAILABLE = { status: 503, body: { detail: 'Service Unavailable' } };

if (!DATABASE_URL) {
  describe('a PostgreSQL outage through the adapters', () => {
    it.skip(`answers 503 and the outage stream (skipped: ${NEEDS_SERVER})`, () => {});
  });
}

describe.skipIf(!DATABASE_URL).each(['node-http', 'express'] as AdapterName[])('a PostgreSQL outage through %s', (adapter) => {
  const schema = `sop_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let admin: pg.Pool;
  let proxy: TcpProxy;
  let storage: PostgresStorage;
  let api: ApiServer;
  let f: Fixture;
  let n = 0;

  /** Reads `GET /events` to its end during an outage, else its opening frame only. */
  const answers = async (down: boolean) => {
    const widget = await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
    const press = await request(api, 'POST', '/device/presses', {
      authorization: `Device ${f.deviceToken}`,
      body: { owner: 'acme', slug: 'lights', request_id: `r${n++}`, action: 'bell' },
    });
    const events = await openSse(`${api.url}/events`, { authorization: `Token ${f.acme}` });
    if (down) await events.ended;
    else await events.next();
    events.close();
    return {
      widget: { status: widget.status, body: widget.body },
      press: { status: press.status, body: press.body },
      events: { status: events.status, frames: events.frames.map((frame) => frame.raw) },
    };
  };

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: DATABASE_URL });
    await migrate(admin, { schema });
    const target = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  });
  beforeEach(async () => {
    storage = createPostgresStorage({
      connectionString: proxy.via(DATABASE_URL!),
      schema,
      connectTimeoutMs: DEADLINE_MS,
      acquireTimeoutMs: DEADLINE_MS,
      statementTimeoutMs: DEADLINE_MS,
    });
    api = await startApi(adapter, { storage });
    await admin.query(`TRUNCATE "${schema}".accounts, "${schema}".devices, "${schema}".widgets, "${schema}".activities CASCADE`);
    f = await seedFixture(api.tilecast);
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } })).status).toBe(200);
  });
  afterEach(async () => {
    await proxy.stop(); // frozen connections end, so closing never waits on one
    proxy.resume();
    await proxy.start();
    await api.close();
    await storage.close();
  });
  afterAll(async () => {
    await proxy?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  const outage = { widget: UNAVAILABLE, press: UNAVAILABLE, events: { status: 200, frames: ['retry: 1000'] } };
  const normal = { widget: { status: 200 }, press: { status: 202 }, events: { status: 200, frames: [expect.stringMatching(/^retry: 1000\nid: u:\d+$/)] } };

  it('frozen: 503 and the outage stream within the deadlines; afterwards normal answers', async () => {
    proxy.pause();
    const start = performance.now();
    expect(await answers(true)).toEqual(outage);
    expect(performance.now() - start).toBeLessThan(DEADLINE_MS * 20);
    proxy.resume();
    expect(await answers(false)).toMatchObject(normal);
  });

  it('stopped: the same answers; afterwards normal answers', async () => {
    await proxy.stop();
    expect(await answers(true)).toEqual(outage);
    await proxy.start();
    expect(await answers(false)).toMatchObject(normal);
  });
});
