import { randomUUID } from 'node:crypto';
import type { TokenBucketRule } from '@tilecast/core/storage';
import { LATEST_VERSION, type PostgresStorage, createPostgresStorage, migrate, readSchemaVersion } from '@tilecast/storage-postgres';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Backend, DATABASE_URL, NEEDS_SERVER, openBackend, randomSchema } from './support.js';

const T0 = 1_800_000_000_000;
const server = DATABASE_URL ? it : it.skip;
const serverTitle = (title: string) => (DATABASE_URL ? title : `${title} (skipped: ${NEEDS_SERVER})`);

const event = (expiresAt: number) => {
  const id = randomUUID();
  return { id, subject: 'widget/panel', type: 'widget.pressed', expiresAt, envelope: { id, z: 1, a: [2, { y: 3, b: 4 }] } };
};

/** Resolves when `predicate` holds, polling; rejects after `ms`. */
/** After every time these tests use. */
const FAR = T0 + 1_000_000_000;

/** Admits a press with `key`, taking a token from each of `rules`; its note and event outlive the tests. */
const admit = (storage: PostgresStorage, key: string, rules: TokenBucketRule[], keyExpiresAt: number) =>
  storage.admitPress({ key, keyExpiresAt, rules, now: T0, note: { widgetKey: 'w', deviceId: key, until: FAR }, accountId: 'a', event: event(FAR) });

async function eventually(predicate: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The widget push throttle window (core's `WIDGET_PUSH_WINDOW_MS`). */
const W = 2_000;

let backend: Backend;

/** Back to version 5 as released: no broadcast channels, delivery or channel flags. */
async function undoVersion6(schema: string): Promise<void> {
  await backend.admin.query(`DROP TABLE "${schema}".activity_channels`);
  await backend.admin.query(
    `ALTER TABLE "${schema}".activities DROP COLUMN delivery, DROP COLUMN frequent_updates, DROP COLUMN channel_production, DROP COLUMN channel_sandbox`,
  );
  await backend.admin.query(`ALTER TABLE "${schema}".apns_registrations DROP COLUMN channels`);
  await backend.admin.query(`DELETE FROM "${schema}".migrations WHERE version = 6`);
}

/** Back to version 3 as released: no delivery jobs or dead letters, and the throttle windows of version 1. */
async function undoVersion5(schema: string): Promise<void> {
  await undoVersion6(schema);
  await backend.admin.query(`DROP TABLE "${schema}".delivery_jobs, "${schema}".dead_letters`);
  await backend.admin.query(`DROP SEQUENCE "${schema}".delivery_generations`);
  await backend.admin.query(`CREATE TABLE "${schema}".throttle_windows (
    key text PRIMARY KEY, ends_at bigint NOT NULL, window_ms bigint NOT NULL, trailing_pending boolean NOT NULL, last_claim text NOT NULL
  )`);
  await backend.admin.query(`DELETE FROM "${schema}".migrations WHERE version = 5`);
}
const schemas: string[] = [];
const newSchema = (label: string) => {
  const schema = randomSchema(label);
  schemas.push(schema);
  return schema;
};

beforeAll(async () => {
  backend = await openBackend();
});

afterAll(async () => {
  for (const schema of schemas) await backend.dropSchema(schema);
  await backend.end();
});

describe(`storage-postgres (${DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  describe('migrations', () => {
    it('are versioned and idempotent', async () => {
      const schema = newSchema('mig');
      expect(await migrate(backend.admin, { schema })).toEqual({ applied: [1, 2, 3, 4, 5, 6], version: 6 });
      expect(await migrate(backend.admin, { schema })).toEqual({ applied: [], version: 6 });
      const { rows } = await backend.admin.query<{ version: number }>(`SELECT version FROM "${schema}".migrations ORDER BY version`);
      expect(rows.map((row) => Number(row.version))).toEqual([1, 2, 3, 4, 5, 6]);
    });

    it('upgrade a version 1 schema with data to APNs registrations (version 2)', async () => {
      const schema = newSchema('mig2');
      await migrate(backend.admin, { schema });
      // Back to version 1 as released: without the tables of versions 2 to 5.
      await undoVersion5(schema);
      await backend.admin.query(
        `DROP TABLE "${schema}".apns_activity_tokens, "${schema}".apns_registrations, "${schema}".device_stream_leases, "${schema}".fcm_tokens`,
      );
      await backend.admin.query(`DELETE FROM "${schema}".migrations WHERE version >= 2`);
      await backend.admin.query(`INSERT INTO "${schema}".devices (id, account_id, token_hash) VALUES ('phone', 'acme', $1)`, ['b'.repeat(64)]);
      expect(await migrate(backend.admin, { schema })).toEqual({ applied: [2, 3, 4, 5, 6], version: 6 });
      const store = createPostgresStorage({ pool: backend.admin, schema, listen: false });
      expect(await store.getDevice('phone')).toEqual({ id: 'phone', accountId: 'acme', tokenHash: 'b'.repeat(64) });
      expect(await store.setApnsRegistration('phone', { environment: 'sandbox', widgets: 'c'.repeat(64) })).toBe(true);
      expect(await store.getApnsRegistration('phone')).toEqual({ environment: 'sandbox', pushToStart: null, widgets: 'c'.repeat(64), channels: false });
    });

    it("upgrade a version 2 schema to device-stream leases (version 3), dropping the shares with devices of the widget's own account", async () => {
      const schema = newSchema('mig3');
      await migrate(backend.admin, { schema });
      // Back to version 2 as released: without the tables of versions 3 to 5, and with shares it allowed.
      await undoVersion5(schema);
      await backend.admin.query(`DROP TABLE "${schema}".device_stream_leases, "${schema}".fcm_tokens`);
      await backend.admin.query(`DELETE FROM "${schema}".migrations WHERE version >= 3`);
      const store = createPostgresStorage({ pool: backend.admin, schema, listen: false });
      await store.putWidget({ accountId: 'acme', slug: 'lights', template: 'switchboard', staleAfter: null, privacy: 'visible' });
      await backend.admin.query(`INSERT INTO "${schema}".devices (id, account_id, token_hash) VALUES ('own-phone', 'acme', $1), ('guest-phone', 'guest', $2)`, [
        'b'.repeat(64),
        'c'.repeat(64),
      ]);
      await backend.admin.query(
        `INSERT INTO "${schema}".widget_shares (account_id, slug, device_id) VALUES ('acme', 'lights', 'own-phone'), ('acme', 'lights', 'guest-phone')`,
      );
      expect(await migrate(backend.admin, { schema })).toEqual({ applied: [3, 4, 5, 6], version: 6 });
      expect(await store.listWidgetShares('acme', 'lights')).toEqual(['guest-phone']);
      expect(await store.acquireDeviceStreamSlot('own-phone', 'slot', { max: 1, now: 1, ttlMs: 1_000 })).toBe(true);
      expect(await store.acquireDeviceStreamSlot('own-phone', 'other', { max: 1, now: 1, ttlMs: 1_000 })).toBe(false);
    });

    it('upgrade a version 3 schema with devices and APNs registrations to FCM tokens (version 4)', async () => {
      const schema = newSchema('mig4');
      await migrate(backend.admin, { schema });
      // Back to version 3 as released: without the tables of versions 4 and 5.
      await undoVersion5(schema);
      await backend.admin.query(`DROP TABLE "${schema}".fcm_tokens`);
      await backend.admin.query(`DELETE FROM "${schema}".migrations WHERE version = 4`);
      await backend.admin.query(`INSERT INTO "${schema}".devices (id, account_id, token_hash) VALUES ('phone', 'acme', $1)`, ['b'.repeat(64)]);
      // As a version 3 store wrote it (without the channels flag of version 6).
      await backend.admin.query(`INSERT INTO "${schema}".apns_registrations (device_id, environment, widgets) VALUES ('phone', 'sandbox', $1)`, [
        'c'.repeat(64),
      ]);
      const store = createPostgresStorage({ pool: backend.admin, schema, listen: false });
      expect(await migrate(backend.admin, { schema })).toEqual({ applied: [4, 5, 6], version: 6 });
      expect(await store.getApnsRegistration('phone')).toEqual({ environment: 'sandbox', pushToStart: null, widgets: 'c'.repeat(64), channels: false });
      expect(await store.getFcmToken('phone')).toBeNull();
      expect(await store.setFcmToken('phone', 'fcm:Token_1-a')).toBe(true);
      expect(await store.getFcmToken('phone')).toBe('fcm:Token_1-a');
      expect(await store.deleteDevice('phone')).toBe(true);
      const { rows } = await backend.admin.query(`SELECT 1 FROM "${schema}".fcm_tokens`);
      expect(rows).toEqual([]);
    });

    it('upgrade a version 3 schema to delivery jobs and dead letters (version 5), dropping the throttle windows', async () => {
      const schema = newSchema('mig5');
      await migrate(backend.admin, { schema });
      await undoVersion5(schema);
      await backend.admin.query(`INSERT INTO "${schema}".throttle_windows VALUES ('acme/lights', 1, 2000, true, 'owner')`);
      const store = createPostgresStorage({ pool: backend.admin, schema, listen: false });
      await store.putWidget({ accountId: 'acme', slug: 'lights', template: 'switchboard', staleAfter: null, privacy: 'visible' });
      expect(await migrate(backend.admin, { schema })).toEqual({ applied: [5, 6], version: 6 });
      const { rows } = await backend.admin.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [`"${schema}".throttle_windows`]);
      expect(rows).toEqual([{ present: false }]);
      const result = await store.setWidgetContent('acme', 'lights', { content: { on: true }, staleAfter: undefined, now: T0 });
      expect(result.ok && result.job).toMatchObject({ kind: 'widget', slug: 'lights', dueAt: T0, phase: 'changed' });
      await store.addDeadLetters([
        { accountId: 'acme', kind: 'widget', slug: 'lights', deviceId: 'phone', transport: 'apns', reason: 'refused: BadTopic', at: T0 },
      ]);
      expect(await store.listDeadLetters({ limit: 10 })).toHaveLength(1);
    });

    it('upgrade a version 5 schema with activities and registrations to broadcast channels (version 6)', async () => {
      const schema = newSchema('mig6');
      await migrate(backend.admin, { schema });
      await undoVersion6(schema);
      await backend.admin.query(
        `INSERT INTO "${schema}".activities (account_id, slug, template, dismissal_delay_s, state, live, content, updated_at)
         VALUES ('acme', 'build', 'progress', 30, 'ONGOING', true, '{"a":1}', $1)`,
        [T0],
      );
      await backend.admin.query(`INSERT INTO "${schema}".devices (id, account_id, token_hash) VALUES ('phone', 'acme', $1)`, ['b'.repeat(64)]);
      await backend.admin.query(`INSERT INTO "${schema}".apns_registrations (device_id, environment, widgets) VALUES ('phone', 'production', $1)`, [
        'c'.repeat(64),
      ]);
      expect(await migrate(backend.admin, { schema })).toEqual({ applied: [6], version: 6 });
      const store = createPostgresStorage({ pool: backend.admin, schema, listen: false });
      // What was there keeps per-token delivery, holds no channel and follows none.
      expect(await store.getActivity('acme', 'build')).toMatchObject({
        live: true,
        content: { a: 1 },
        delivery: 'tokens',
        frequentUpdates: false,
        channels: { production: null, sandbox: null },
      });
      expect(await store.getApnsRegistration('phone')).toEqual({ environment: 'production', pushToStart: null, widgets: 'c'.repeat(64), channels: false });
      expect(await store.listChannelFollowers('acme', ['production'])).toEqual([]);
      expect(await store.setApnsRegistration('phone', { environment: 'production', channels: true })).toBe(true);
      expect(await store.listChannelFollowers('acme', ['production'])).toEqual(['phone']);
      expect(await store.setActivityChannel('acme', 'build', 'production', 'chan-1')).toBe(true);
      expect(await store.listActivityChannels()).toEqual([
        {
          accountId: 'acme',
          slug: 'build',
          environment: 'production',
          channelId: 'chan-1',
          live: true,
          updatedAt: new Date(T0).toISOString(),
          dismissalDelayS: 30,
        },
      ]);
      // The table refuses what the store never writes: an id twice, an unknown delivery.
      await expect(
        backend.admin.query(
          `INSERT INTO "${schema}".activity_channels (channel_id, account_id, slug, environment) VALUES ('chan-1', 'acme', 'build', 'sandbox')`,
        ),
      ).rejects.toThrow();
      await expect(backend.admin.query(`UPDATE "${schema}".activities SET delivery = 'carrier-pigeon'`)).rejects.toThrow();
    });

    it('readSchemaVersion answers 0 for a schema never migrated, then the version migrate reached, creating nothing', async () => {
      const schema = newSchema('ver');
      expect(await readSchemaVersion(backend.admin, { schema })).toBe(0);
      const { rows } = await backend.admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]);
      expect(rows).toEqual([]);
      const { applied } = await migrate(backend.admin, { schema });
      expect(await readSchemaVersion(backend.admin, { schema })).toBe(LATEST_VERSION);
      await backend.admin.query(`DELETE FROM "${schema}".migrations WHERE version = $1`, [LATEST_VERSION]);
      // The version before (versions need not be contiguous).
      expect(await readSchemaVersion(backend.admin, { schema })).toBe(applied.at(-2));
      await expect(readSchemaVersion(backend.admin, { schema: 'a-b' })).rejects.toThrow('invalid schema name');
    });

    server(serverTitle('run once when several instances migrate at the same time'), async () => {
      const schema = newSchema('migc');
      const pools = Array.from({ length: 4 }, () => backend.newPool());
      const results = await Promise.all(pools.map((pool) => migrate(pool, { schema })));
      expect(results.filter((r) => r.applied.length > 0)).toEqual([{ applied: [1, 2, 3, 4, 5, 6], version: 6 }]);
      expect(results.every((r) => r.version === 6)).toBe(true);
    });

    it('refuse a schema name that is not a plain identifier', async () => {
      for (const bad of ['', 'a-b', 'x"; DROP TABLE y; --', '1abc', 'a'.repeat(49), 'sp ace']) {
        await expect(migrate(backend.admin, { schema: bad })).rejects.toThrow('invalid schema name');
        expect(() => createPostgresStorage({ pool: backend.admin, schema: bad })).toThrow('invalid schema name');
      }
    });

    it('keep the case of a schema name (it is quoted)', async () => {
      const schema = newSchema('Mixed');
      await migrate(backend.admin, { schema });
      const storage = createPostgresStorage({ pool: backend.admin, schema });
      expect((await storage.appendEvent('acct', event(T0))).position).toBe(1);
      await storage.close();
    });
  });

  describe('pool ownership', () => {
    it('close() never ends a pool the host passed in', async () => {
      const schema = newSchema('own');
      const pool = backend.newPool();
      await migrate(pool, { schema });
      const storage = createPostgresStorage({ pool, schema });
      await storage.upsertAccount({ id: 'a', tokenHash: 'h', subscription: 'active', activityQuota: 1 });
      await storage.close();
      await storage.close();
      const { rows } = await pool.query<{ id: string }>(`SELECT id FROM "${schema}".accounts`);
      expect(rows).toEqual([{ id: 'a' }]);
    });

    server(serverTitle('close() ends the pool the store opened from a connection string'), async () => {
      const schema = newSchema('ownc');
      await migrate(backend.admin, { schema });
      const storage = createPostgresStorage({ connectionString: DATABASE_URL!, schema });
      expect(await storage.lastEventPosition('a')).toBe(0);
      const pool = storage.pool as pg.Pool;
      expect(pool.totalCount).toBeGreaterThan(0);
      await storage.close();
      expect(pool.ended).toBe(true);
    });

    it('needs a pool or a connection string', () => {
      expect(() => createPostgresStorage({})).toThrow('needs a pool or a connectionString');
    });
  });

  describe('JSON round trip', () => {
    it('content and envelopes come back exactly as given, key order included', async () => {
      const schema = newSchema('json');
      await migrate(backend.admin, { schema });
      const storage = createPostgresStorage({ pool: backend.admin, schema });
      const envelope = { z: 1, a: { y: [3, 'ü€😀', null], b: 2.5 }, '10': 'x', '2': 'y', __proto__x: true };
      await storage.appendEvent('acct', { ...event(T0), envelope });
      const [read] = await storage.readEvents('acct', { after: 0, now: 0, limit: 1 });
      expect(JSON.stringify(read!.envelope)).toBe(JSON.stringify(envelope));
      await storage.putWidget({ accountId: 'a', slug: 'w', template: 't', staleAfter: null, privacy: 'visible' });
      const content = { zeta: 1, alpha: { second: 2, first: 1 } };
      await storage.setWidgetContent('a', 'w', { content, staleAfter: undefined, now: T0 });
      expect(JSON.stringify((await storage.getWidget('a', 'w'))!.content)).toBe(JSON.stringify(content));
      await storage.close();
    });
  });

  describe('purge', () => {
    it('frees full token buckets and done jobs whose throttle window is over, in bounded batches, uncounted', async () => {
      const schema = newSchema('purge');
      await migrate(backend.admin, { schema });
      const storage = createPostgresStorage({ pool: backend.admin, schema });
      const count = async (table: string) =>
        Number((await backend.admin.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".${table}`)).rows[0]!.n);
      // Five widgets whose job is done, with a window until T0 + W; one with a job still pending.
      const deliver = async (slug: string, now: number) => {
        const written = await storage.setWidgetContent('acme', slug, { content: { now }, staleAfter: undefined, now });
        if (!written.ok) throw new Error(written.reason);
        return written.job;
      };
      for (const slug of ['quiet0', 'quiet1', 'quiet2', 'quiet3', 'quiet4', 'busy']) {
        await storage.putWidget({ accountId: 'acme', slug, template: 'switchboard', staleAfter: null, privacy: 'visible' });
        const job = await deliver(slug, T0);
        expect(await storage.claimDeliveryJob(job, job.generation, { instanceId: 'i1', now: T0, leaseMs: 30_000 })).not.toBeNull();
        expect(await storage.completeDeliveryJob({ ...job, instanceId: 'i1' })).toBe(true);
      }
      expect((await deliver('busy', T0 + 1)).dueAt).toBe(T0 + W);
      expect(await storage.purgeExpired({ now: T0 + W - 1, batch: 100 })).toBe(0);
      expect(await count('delivery_jobs')).toBe(6); // every window still runs
      // Token takes are admissions whose keys outlive the test; the five `p<i>` keys expire.
      for (let i = 0; i < 5; i++) await admit(storage, `take${i}`, [{ key: `fast${i}`, capacity: 2, refillMs: 5 }], FAR);
      await admit(storage, 'take-slow', [{ key: 'slow', capacity: 2, refillMs: 60_000 }], FAR);
      for (let i = 0; i < 5; i++) await admit(storage, `p${i}`, [], T0 + 10);

      expect(await storage.purgeExpired({ now: T0 + W, batch: 2 })).toBe(2);
      expect(await count('token_buckets')).toBe(4);
      expect(await count('delivery_jobs')).toBe(4);
      for (let i = 0; i < 5; i++) await storage.purgeExpired({ now: T0 + W, batch: 2 });
      expect(await count('token_buckets')).toBe(1); // 'slow' is not full yet
      expect(await count('delivery_jobs')).toBe(1); // 'busy' is still to be delivered
      expect(await storage.deliveryJobStats()).toEqual({ pending: 1, oldestCreatedAt: T0 + 1 });
      // A freed row is as no row: the next update is due at once.
      expect((await deliver('quiet0', T0 + W + 1)).dueAt).toBe(T0 + W + 1);
      await storage.close();
    });

    server(serverTitle('an update waiting for a claim in flight on the job row is held back by the window that claim opens'), async () => {
      const schema = newSchema('window');
      await migrate(backend.admin, { schema });
      const storage = createPostgresStorage({ pool: backend.newPool(), schema });
      await storage.putWidget({ accountId: 'acme', slug: 'lights', template: 'switchboard', staleAfter: null, privacy: 'visible' });
      const first = await storage.setWidgetContent('acme', 'lights', { content: { on: 1 }, staleAfter: undefined, now: T0 });
      if (!first.ok) throw new Error(first.reason);
      const claimer = await (backend.newPool() as pg.Pool).connect();
      try {
        await claimer.query('BEGIN');
        // What a claim writes, left uncommitted: the update must wait for it and then see it,
        // although its statement began before the claim committed.
        await claimer.query(`UPDATE "${schema}".delivery_jobs SET leased_by = 'i1', lease_until = $1, window_until = $2 WHERE slug = 'lights'`, [
          T0 + 30_000,
          T0 + W,
        ]);
        let settled = false;
        const second = storage.setWidgetContent('acme', 'lights', { content: { on: 2 }, staleAfter: undefined, now: T0 + 5 }).finally(() => (settled = true));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(settled).toBe(false);
        await claimer.query('COMMIT');
        const written = await second;
        expect(written.ok && written.job).toMatchObject({ dueAt: T0 + W, leasedBy: null, createdAt: T0 + 5 });
      } finally {
        claimer.release();
      }
      expect(await storage.listDeliveryJobs({ accountId: 'acme', limit: 10 })).toMatchObject([{ dueAt: T0 + W, leasedBy: null }]);
      await storage.close();
    });

    server(serverTitle('skips rows a request holds locked instead of waiting for them'), async () => {
      const schema = newSchema('purgel');
      await migrate(backend.admin, { schema });
      const storage = createPostgresStorage({ pool: backend.admin, schema });
      await admit(storage, 'held', [], T0 + 10);
      await admit(storage, 'free', [], T0 + 10);
      const holder = await (backend.newPool() as pg.Pool).connect();
      try {
        await holder.query('BEGIN');
        await holder.query(`SELECT 1 FROM "${schema}".press_keys WHERE key = 'held' FOR UPDATE`);
        const started = Date.now();
        expect(await storage.purgeExpired({ now: T0 + 10, batch: 100 })).toBe(1);
        expect(Date.now() - started).toBeLessThan(2_000);
        await holder.query('ROLLBACK');
      } finally {
        holder.release();
      }
      expect(await storage.purgeExpired({ now: T0 + 10, batch: 100 })).toBe(1);
      await storage.close();
    });
  });

  describe('event positions', () => {
    server(serverTitle('an append in flight holds the next one back, and its rollback leaves no gap'), async () => {
      const schema = newSchema('pos');
      await migrate(backend.admin, { schema });
      const storage = createPostgresStorage({ pool: backend.newPool(), schema });
      const account = 'acct';
      expect((await storage.appendEvent(account, event(T0))).position).toBe(1);
      const inFlight = await (backend.newPool() as pg.Pool).connect();
      try {
        await inFlight.query('BEGIN');
        // What an append does first: take the next position on the counter row.
        const taken = await inFlight.query(`UPDATE "${schema}".event_counters SET last = last + 1 WHERE account_id = $1 RETURNING last`, [account]);
        expect(Number(taken.rows[0].last)).toBe(2);
        let settled = false;
        const second = storage.appendEvent(account, event(T0)).finally(() => (settled = true));
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(settled).toBe(false); // queued behind the counter row lock: nobody can see 3 before 2
        expect(await storage.lastEventPosition(account)).toBe(1);
        await inFlight.query('ROLLBACK');
        expect((await second).position).toBe(2);
      } finally {
        inFlight.release();
      }
      expect((await storage.readEvents(account, { after: 0, now: 0, limit: 10 })).map((e) => e.position)).toEqual([1, 2]);
      await storage.close();
    });
  });

  describe('LISTEN/NOTIFY wake-ups', () => {
    it('a store on a pool that cannot open a second connection has no subscribeEvents', async () => {
      if (backend.kind === 'pglite') {
        expect(createPostgresStorage({ pool: backend.admin }).subscribeEvents).toBeUndefined();
      }
      expect(createPostgresStorage({ pool: backend.admin, listen: false }).subscribeEvents).toBeUndefined();
    });

    let a: PostgresStorage;
    let b: PostgresStorage;
    let schema: string;
    const woken: string[] = [];

    const setup = async () => {
      schema = newSchema('listen');
      await migrate(backend.admin, { schema });
      a = createPostgresStorage({
        pool: backend.newPool(),
        schema,
        listenTiming: { minDelayMs: 200, maxDelayMs: 1_000, heartbeatMs: 500 },
      });
      b = createPostgresStorage({ pool: backend.newPool(), schema });
      a.subscribeEvents!((accountId) => woken.push(accountId));
      await a.listening();
    };

    server(serverTitle('an append on one store wakes the subscribers of another, with the account id only'), async () => {
      await setup();
      const account = `acct-${randomUUID()}`;
      await b.appendEvent(account, event(T0 + 60_000));
      await eventually(() => woken.includes(account));
      // The payload names the account; the event itself is read from the table.
      expect((await a.readEvents(account, { after: 0, now: T0, limit: 10 })).map((e) => e.position)).toEqual([1]);
    });

    server(serverTitle('unsubscribing stops the wake-ups of that listener only'), async () => {
      const mine: string[] = [];
      const unsubscribe = a.subscribeEvents!((accountId) => mine.push(accountId));
      const first = `acct-${randomUUID()}`;
      await b.appendEvent(first, event(T0 + 60_000));
      await eventually(() => mine.includes(first) && woken.includes(first));
      unsubscribe();
      const second = `acct-${randomUUID()}`;
      await b.appendEvent(second, event(T0 + 60_000));
      await eventually(() => woken.includes(second));
      expect(mine).not.toContain(second);
    });

    server(serverTitle('after pg_terminate_backend of the listening connection it reconnects and catches up'), async () => {
      const before = a.listenConnections();
      const terminated = await backend.admin.query<{ ok: boolean }>(
        `SELECT pg_terminate_backend(pid, 5000) AS ok FROM pg_stat_activity WHERE application_name = $1`,
        [`tilecast-listen:${schema}`],
      );
      expect(terminated.rows.map((row) => row.ok)).toEqual([true]);
      // Appended while nobody listens: the notification is lost, the catch-up must wake it.
      const missed = `acct-${randomUUID()}`;
      await b.appendEvent(missed, event(T0 + 60_000));
      await eventually(() => woken.includes(missed));
      // The catch-up wake-up comes just before the new connection is counted.
      await eventually(() => a.listenConnections() === before + 1);
      // And it listens again.
      const later = `acct-${randomUUID()}`;
      await b.appendEvent(later, event(T0 + 60_000));
      await eventually(() => woken.includes(later));
    });

    server(serverTitle('close() ends the listening connection'), async () => {
      await a.close();
      await b.close();
      await eventually(async () => {
        const { rows } = await backend.admin.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1`, [`tilecast-listen:${schema}`]);
        return rows.length === 0;
      });
    });
  });
});
