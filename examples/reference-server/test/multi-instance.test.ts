/**
 * Two reference servers on one PostgreSQL database, as two instances behind a load
 * balancer: events cross instances, stream slots are shared, a dead instance's slots
 * free themselves, and a dropped LISTEN connection loses no event.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@tilecast/core';
import { createPostgresStorage } from '@tilecast/storage-postgres';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { openSse, dataOf, type SseConnection } from '../../../test/support/sse-client.js';

const DATABASE_URL = process.env.DATABASE_URL || undefined;
const EVENT_STREAM_SLOT_TTL_MS = 60_000;
const NEEDS_SERVER = 'needs a real PostgreSQL server: set DATABASE_URL or run one on 127.0.0.1:5432';

describe.skipIf(!DATABASE_URL)('multi-instance on PostgreSQL', () => {
  const schema = `mi_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  let admin: pg.Pool;
  let a: ReferenceServer;
  let b: ReferenceServer;
  const streams: SseConnection[] = [];
  let owner = '';
  let device = '';

  /** Each instance names its connections, so the test can find B's LISTEN connection. */
  const start = (name: string) => {
    const url = new URL(DATABASE_URL!);
    url.searchParams.set('application_name', `${schema}-${name}`);
    return startReferenceServer(readConfig({ PORT: '0', DATABASE_URL: url.toString(), TILECAST_DATABASE_SCHEMA: schema, TILECAST_DEMO: '1' }), silentLogger);
  };
  const stream = async (server: ReferenceServer, headers: Record<string, string> = {}) => {
    const connection = await openSse(`${server.url}/events`, { authorization: `Token ${owner}`, ...headers });
    streams.push(connection);
    return connection;
  };
  const press = async (server: ReferenceServer, requestId: string) => {
    const reply = await fetch(`${server.url}/device/presses`, {
      method: 'POST',
      headers: { authorization: `Device ${device}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'demo', slug: 'lights', request_id: requestId, action: 'bell' }),
    });
    expect(reply.status).toBe(202);
    return ((await reply.json()) as { event_id: string }).event_id;
  };

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: DATABASE_URL });
    a = await start('a');
    b = await start('b');
    // The first start created the demo account; new tokens the test knows replace its own.
    ({ token: owner } = await b.tilecast.management.createAccount({ id: 'demo', activityQuota: 2 }));
    ({ token: device } = await b.tilecast.management.registerDevice({ id: 'demo-phone', account: 'demo' }));
    const content = { template: 'switchboard', actions: [{ id: 'bell', label: 'Doorbell' }] };
    const reply = await fetch(`${a.url}/widget/lights`, {
      method: 'PATCH',
      headers: { authorization: `Token ${owner}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
    });
    expect(reply.status).toBe(200);
  });
  afterAll(async () => {
    for (const s of streams) s.close();
    await a?.close();
    await b?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it('a press reported to instance A reaches GET /events on instance B', async () => {
    const onB = await stream(b);
    await onB.next();
    const id = await press(a, 'cross-1');
    const frame = await onB.next((f) => f.data !== undefined);
    expect(dataOf(frame).id).toBe(id);
  });

  it('four streams spread over both instances make a fifth 429, on either instance', async () => {
    for (const s of streams.splice(0)) s.close();
    await waitFor(async () => (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".stream_leases`)).rows[0].n === 0);
    const open = [await stream(a), await stream(b), await stream(a), await stream(b)];
    expect(open.map((s) => s.status)).toEqual([200, 200, 200, 200]);
    expect((await stream(a)).status).toBe(429);
    expect((await stream(b)).status).toBe(429);
  });

  it('a LISTEN connection terminated on B loses no event', async () => {
    for (const s of streams.splice(0)) s.close();
    await waitFor(async () => (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".stream_leases`)).rows[0].n === 0);
    const onB = await stream(b);
    await onB.next();
    // B's LISTEN connection: its last statement is LISTEN or the listener's snapshot query.
    const killed = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND (query LIKE 'LISTEN%' OR query LIKE '%pg_current_snapshot%')`,
      [`${schema}-b`],
    );
    expect(killed.rowCount).toBe(1);
    const ids = [await press(a, 'drop-1'), await press(a, 'drop-2')];
    const got = [dataOf(await onB.next((f) => f.data !== undefined, 15_000)).id, dataOf(await onB.next((f) => f.data !== undefined, 15_000)).id];
    expect(got).toEqual(ids);
  });

  it("a dead instance's stream slots free themselves within the slot TTL", async () => {
    for (const s of streams.splice(0)) s.close();
    await waitFor(async () => (await admin.query(`SELECT count(*)::int AS n FROM "${schema}".stream_leases`)).rows[0].n === 0);
    // A crashed instance: it took all four slots and never renewed nor released them.
    const dead = createPostgresStorage({ pool: admin, schema, listen: false });
    const takenAt = Date.now() - 30_000;
    for (let i = 0; i < 4; i++)
      expect(await dead.acquireEventStreamSlot('demo', `dead-${i}`, { max: 4, now: takenAt, ttlMs: EVENT_STREAM_SLOT_TTL_MS })).toBe(true);
    expect((await stream(a)).status).toBe(429);
    // Once the slot TTL (60 s) has passed since its last renewal, the slots are free.
    await admin.query(`UPDATE "${schema}".stream_leases SET expires_at = expires_at - 31000`);
    expect((await stream(a)).status).toBe(200);
    expect((await stream(b)).status).toBe(200);
    await dead.close();
  });

  it('a token rotated and a device token changed through A end the streams open on B within 5 s; others keep running', async () => {
    const { token: revoked } = await a.tilecast.management.createAccount({ id: 'revoke' });
    const { token: kept } = await a.tilecast.management.createAccount({ id: 'keep' });
    const { token: phone } = await a.tilecast.management.registerDevice({ id: 'revoke-phone', account: 'revoke' });
    const onB = [
      await openSse(`${b.url}/events`, { authorization: `Token ${revoked}` }),
      await openSse(`${b.url}/device/stream`, { authorization: `Device ${phone}` }),
    ];
    const keeper = await openSse(`${b.url}/events`, { authorization: `Token ${kept}` });
    streams.push(...onB, keeper);
    for (const s of [...onB, keeper]) await s.next();

    const changedAt = Date.now();
    await a.tilecast.management.rotateToken('revoke');
    await a.tilecast.management.registerDevice({ id: 'revoke-phone', account: 'revoke' });
    const within = (ms: number) => new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), ms));
    const outcomes = await Promise.all(onB.map((s) => Promise.race([s.ended.then(() => 'ended'), within(5_000)])));
    expect(outcomes).toEqual(['ended', 'ended']);
    expect(Date.now() - changedAt).toBeLessThan(5_000);
    expect(await Promise.race([keeper.ended.then(() => 'ended'), within(100)])).toBe('running');
  });

  it('an ended subscription, a deleted account and a removed device through A end the streams open on B within 5 s', async () => {
    const { token: ended } = await a.tilecast.management.createAccount({ id: 'ended' });
    const { token: gone } = await a.tilecast.management.createAccount({ id: 'gone' });
    const { token: goneDevice } = await a.tilecast.management.registerDevice({ id: 'gone-phone', account: 'gone' });
    const { token: keep } = await a.tilecast.management.createAccount({ id: 'keep-2' });
    const { token: removed } = await a.tilecast.management.registerDevice({ id: 'removed-phone', account: 'keep-2' });
    const onB = [
      await openSse(`${b.url}/events`, { authorization: `Token ${ended}` }),
      await openSse(`${b.url}/events`, { authorization: `Token ${gone}` }),
      await openSse(`${b.url}/device/stream`, { authorization: `Device ${goneDevice}` }),
      await openSse(`${b.url}/device/stream`, { authorization: `Device ${removed}` }),
    ];
    const keeper = await openSse(`${b.url}/events`, { authorization: `Token ${keep}` });
    streams.push(...onB, keeper);
    for (const s of [...onB, keeper]) await s.next();

    const changedAt = Date.now();
    await a.tilecast.management.setSubscription('ended', 'none');
    await a.tilecast.management.deleteAccount('gone');
    await a.tilecast.management.deleteDevice('removed-phone');
    const within = (ms: number) => new Promise<'running'>((resolve) => setTimeout(() => resolve('running'), ms));
    const outcomes = await Promise.all(onB.map((s) => Promise.race([s.ended.then(() => 'ended'), within(5_000)])));
    expect(outcomes).toEqual(['ended', 'ended', 'ended', 'ended']);
    expect(Date.now() - changedAt).toBeLessThan(5_000);
    expect(await Promise.race([keeper.ended.then(() => 'ended'), within(100)])).toBe('running');
  });

  // Last: it changes the owner's token.
  it('a token rotated on B stops working on A at once, though A remembers it', async () => {
    const patch = (server: ReferenceServer, token: string, body: unknown) =>
      fetch(`${server.url}/widget/lights`, {
        method: 'PATCH',
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const content = { template: 'switchboard', actions: [{ id: 'bell', label: 'Doorbell' }] };
    expect((await patch(a, owner, { content })).status).toBe(200); // A remembers the credential
    const rotated = await b.tilecast.management.rotateToken('demo');
    expect((await patch(a, owner, { content })).status).toBe(401);
    expect((await patch(a, owner, { content: { template: 'gauge' } })).status).toBe(401);
    expect((await patch(a, rotated, { content })).status).toBe(200);
    await b.tilecast.management.setSubscription('demo', 'none');
    expect((await patch(a, rotated, { content })).status).toBe(402);
  });
});

if (!DATABASE_URL) {
  describe('multi-instance on PostgreSQL', () => {
    it.skip(`all tests skipped: ${NEEDS_SERVER}`, () => {});
  });
}

async function waitFor(check: () => Promise<boolean>, attempts = 100): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error('condition not met');
}
