/**
 * Deadlines against the real server, through a TCP proxy the test freezes (sockets stay
 * open, nothing is answered): statements, connecting and acquiring fail fast with
 * `StorageUnavailableError`, calls never pile up beyond the pool, a timed-out connection
 * is discarded, and the store (its `LISTEN` connection included) recovers by itself.
 * Deadlines are injected short (300 ms); nothing in the store sleeps.
 */
import { randomUUID } from 'node:crypto';
import { StorageUnavailableError } from '@tilecast/core/storage';
import { LATEST_VERSION, type PostgresStorage, createPostgresStorage, migrate } from '@tilecast/storage-postgres';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, type ScratchDatabase } from '../../../test/support/scratch-database.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { DATABASE_URL, NEEDS_SERVER, randomSchema } from './support.js';

const DEADLINE = 300;
const deadlines = { connectTimeoutMs: DEADLINE, acquireTimeoutMs: DEADLINE, statementTimeoutMs: DEADLINE };
/** A failure must come within the deadline plus scheduling slack, far below any test timeout. */
const FAST = DEADLINE * 5;

const T0 = 1_800_000_000_000;
const event = () => {
  const id = randomUUID();
  return { id, subject: 'widget/panel', type: 'widget.pressed', expiresAt: T0 + 60_000, envelope: { id } };
};

/** Settles `promise` and says how long it took. */
async function timed<T>(promise: Promise<T>): Promise<{ ms: number; value?: T; error?: unknown }> {
  const start = performance.now();
  try {
    const value = await promise;
    return { ms: performance.now() - start, value };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

async function eventually(predicate: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe.skipIf(!DATABASE_URL)('storage-postgres deadlines through a frozen connection (PostgreSQL)', () => {
  const schema = randomSchema('outage');
  let admin: pg.Pool;
  let proxy: TcpProxy;
  const stores: PostgresStorage[] = [];

  /** A store whose connections go through the proxy, named so the test can find its backends. */
  const open = (options: Partial<Parameters<typeof createPostgresStorage>[0]> = {}) => {
    const url = new URL(proxy.via(DATABASE_URL!));
    url.searchParams.set('application_name', schema);
    const store = createPostgresStorage({ connectionString: url.toString(), schema, ...deadlines, ...options });
    stores.push(store);
    return store;
  };
  const ownPool = (store: PostgresStorage) => store.pool as pg.Pool;

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: DATABASE_URL });
    await migrate(admin, { schema });
    const target = new URL(DATABASE_URL!);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  });
  afterEach(async () => {
    // Every connection through the proxy ends (frozen ones included), so closing never waits on one.
    await proxy.stop();
    proxy.resume();
    await proxy.start();
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(async () => {
    await proxy?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it('a statement on a frozen connection fails within its deadline, its connection is discarded, and the store recovers', async () => {
    const store = open();
    expect(await store.getAccount('nobody')).toBeNull(); // one pooled connection, idle
    expect(ownPool(store).totalCount).toBe(1);
    proxy.pause();
    const single = await timed(store.getAccount('nobody'));
    expect(single.error).toBeInstanceOf(StorageUnavailableError);
    expect(single.ms).toBeLessThan(FAST);
    // Not returned to the pool in an unknown state: destroyed.
    expect(ownPool(store).totalCount).toBe(0);
    // A transaction fails alike (connecting through the frozen proxy now).
    const transaction = await timed(store.acquireEventStreamSlot('a', 'l1', { max: 4, now: T0, ttlMs: 60_000 }));
    expect(transaction.error).toBeInstanceOf(StorageUnavailableError);
    expect(transaction.ms).toBeLessThan(FAST);
    proxy.resume();
    expect(await store.getAccount('nobody')).toBeNull();
    expect(await store.acquireEventStreamSlot('a', 'l1', { max: 4, now: T0, ttlMs: 60_000 })).toBe(true);
  });

  it('a statement frozen inside a transaction discards the connection at once (no ROLLBACK waits out another deadline)', async () => {
    const store = open();
    expect(await store.acquireEventStreamSlot('b', 'warm', { max: 4, now: T0, ttlMs: 60_000 })).toBe(true);
    proxy.pause();
    const result = await timed(store.acquireEventStreamSlot('b', 'frozen', { max: 4, now: T0, ttlMs: 60_000 }));
    expect(result.error).toBeInstanceOf(StorageUnavailableError);
    expect(result.ms).toBeLessThan(DEADLINE * 1.7); // one deadline, not two
    expect(ownPool(store).totalCount).toBe(0);
  });

  it('concurrent calls while frozen all fail fast and never pile up beyond the pool', async () => {
    const store = open();
    await store.getAccount('nobody');
    const acceptedBefore = proxy.accepted;
    proxy.pause();
    const calls = Array.from({ length: 40 }, (_, i) => timed<unknown>(i % 2 ? store.getAccount('nobody') : store.lastEventPosition('a')));
    expect(ownPool(store).totalCount).toBeLessThanOrEqual(10); // pg.Pool's default max
    const results = await Promise.all(calls);
    expect(results.every((result) => result.error instanceof StorageUnavailableError)).toBe(true);
    expect(Math.max(...results.map((result) => result.ms))).toBeLessThan(FAST);
    expect(ownPool(store).waitingCount).toBe(0);
    // Connections attempted: bounded by the pool, never one per call (40). A waiter that
    // pg-pool still queues when the first attempts fail may start one more round.
    expect(proxy.accepted - acceptedBefore).toBeLessThan(20);
    proxy.resume();
    expect(await store.lastEventPosition('a')).toBe(0);
  });

  it('connecting through a frozen proxy times out; a refused connection is unavailable too', async () => {
    const store = open();
    proxy.pause();
    const frozen = await timed(store.getAccount('nobody'));
    expect(frozen.error).toBeInstanceOf(StorageUnavailableError);
    expect(frozen.ms).toBeLessThan(FAST);
    proxy.resume();
    await proxy.stop();
    const refused = await timed(store.getAccount('nobody'));
    expect(refused.error).toBeInstanceOf(StorageUnavailableError);
    expect(String((refused.error as Error).cause)).toMatch(/ECONNREFUSED/);
    await proxy.start();
    expect(await store.getAccount('nobody')).toBeNull();
  });

  it('a statement the server is slow to run fails at its deadline, and the server stops running it', async () => {
    const store = open();
    await store.acquireEventStreamSlot('held', 'warm', { max: 4, now: T0, ttlMs: 60_000 });
    // The slot operation waits for this account's advisory lock, held here.
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`"${schema}":lease:held`]);
      const result = await timed(store.acquireEventStreamSlot('held', 'blocked', { max: 4, now: T0, ttlMs: 60_000 }));
      expect(result.error).toBeInstanceOf(StorageUnavailableError);
      expect(result.ms).toBeLessThan(FAST);
      // The store's server-side statement_timeout cancels the waiting backend too, while the lock is still held.
      await eventually(async () => {
        const { rows } = await admin.query(`SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'`, [schema]);
        return rows.length === 0;
      });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
  });

  it('migrate() is not cut by a pool statement_timeout (it may wait for another instance migrating)', async () => {
    const name = `${schema}-migrate`;
    const pool = new pg.Pool({ connectionString: DATABASE_URL, statement_timeout: DEADLINE, application_name: name });
    const holder = await admin.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`@tilecast/storage-postgres:migrate:${schema}`]);
      const migrating = migrate(pool, { schema });
      migrating.catch(() => undefined);
      // Held well past the pool's statement_timeout while migrate() waits for the lock.
      await eventually(async () => {
        const { rows } = await admin.query(
          `SELECT 1 FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock' AND now() - query_start > make_interval(secs => $2)`,
          [name, (DEADLINE * 3) / 1000],
        );
        return rows.length === 1;
      });
      await holder.query('COMMIT');
      expect(await migrating).toEqual({ applied: [], version: LATEST_VERSION });
    } finally {
      holder.release();
      await pool.end();
    }
  });

  it('a host pool gets the acquire and statement deadlines', async () => {
    const pool = new pg.Pool({ connectionString: proxy.via(DATABASE_URL!), max: 2 });
    pool.on('error', () => {});
    try {
      const store = createPostgresStorage({ pool, schema, ...deadlines, listen: false });
      await store.getAccount('nobody');
      proxy.pause();
      // The host's pool has no connection timeout of its own: the store's acquire deadline answers.
      const results = await Promise.all(Array.from({ length: 6 }, () => timed(store.getAccount('nobody'))));
      expect(results.every((result) => result.error instanceof StorageUnavailableError)).toBe(true);
      expect(Math.max(...results.map((result) => result.ms))).toBeLessThan(FAST);
      proxy.resume();
      await eventually(async () => (await timed(store.getAccount('nobody'))).value === null);
    } finally {
      proxy.resume();
      await pool.end();
    }
  });

  describe("pg's own options, checked rather than assumed", () => {
    it('connectionTimeoutMillis ends a connect through a frozen proxy (relied on for connecting)', async () => {
      proxy.pause();
      const client = new pg.Client({ connectionString: proxy.via(DATABASE_URL!), connectionTimeoutMillis: DEADLINE });
      const result = await timed(client.connect());
      expect(result.error).toBeInstanceOf(Error);
      expect(result.ms).toBeLessThan(FAST);
    });

    it('statement_timeout (server side) cannot end a statement on a frozen connection; query_timeout fails it but keeps the dead connection', async () => {
      const client = new pg.Client({ connectionString: proxy.via(DATABASE_URL!), statement_timeout: DEADLINE, query_timeout: DEADLINE * 4 });
      client.on('error', () => {});
      await client.connect();
      try {
        proxy.pause();
        // The server never sees the statement, so its timeout never fires: only the client-side one does.
        const frozen = await timed(client.query('SELECT 1'));
        expect((frozen.error as Error).message).toBe('Query read timeout');
        expect(frozen.ms).toBeGreaterThanOrEqual(DEADLINE * 4 - 20);
        // pg keeps the connection as it is: once the path is back, it is still dead (a new one
        // works), so whoever holds it must discard it; the store does (release(error)).
        proxy.resumeNewOnly();
        const next = await timed(client.query({ text: 'SELECT 2', query_timeout: DEADLINE } as pg.QueryConfig));
        expect((next.error as Error).message).toBe('Query read timeout');
        const fresh = new pg.Client({ connectionString: proxy.via(DATABASE_URL!) });
        await fresh.connect();
        expect((await fresh.query('SELECT 3 AS n')).rows).toEqual([{ n: 3 }]);
        await fresh.end();
      } finally {
        await client.end();
      }
    });
  });

  it('the LISTEN connection notices a freeze, reconnects when the path comes back, and catches up', async () => {
    const errors: Error[] = [];
    const listening = open({ listenTiming: { minDelayMs: 50, maxDelayMs: 200, heartbeatMs: 200 }, onError: (error) => errors.push(error) });
    const woken: string[] = [];
    listening.subscribeEvents!((accountId) => woken.push(accountId));
    await listening.listening();
    const appender = createPostgresStorage({ connectionString: DATABASE_URL!, schema, listen: false });
    stores.push(appender);
    const before = listening.listenConnections();

    proxy.pause();
    await eventually(() => errors.length > 0); // the heartbeat missed its deadline
    const accepted = proxy.accepted;
    await eventually(() => proxy.accepted > accepted); // a reconnect attempt, frozen too
    const missed = `acct-${randomUUID()}`;
    await appender.appendEvent(missed, event());
    // The path comes back, but every connection opened so far (the frozen reconnect attempt
    // included) stays dead: only a connect deadline gets the listener out of it.
    proxy.resumeNewOnly();
    await eventually(() => woken.includes(missed));
    await eventually(() => listening.listenConnections() > before);
    const later = `acct-${randomUUID()}`;
    await appender.appendEvent(later, event());
    await eventually(() => woken.includes(later));
  });
});

describe.skipIf(!DATABASE_URL)('storage-postgres on a database that refuses connections (PostgreSQL)', () => {
  let scratch: ScratchDatabase;
  let admin: pg.Client;
  let store: PostgresStorage | undefined;
  const allowConnections = (allowed: boolean) => admin.query(`ALTER DATABASE "${scratch.name}" ALLOW_CONNECTIONS ${allowed}`);

  beforeAll(async () => {
    // A database of its own: refusing connections to the run's would cut the other tests'.
    const server = new URL(DATABASE_URL!);
    server.pathname = '';
    scratch = await createScratchDatabase(server.toString().replace(/\/$/, ''));
    admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await store?.close();
    await admin?.end();
    await scratch?.drop();
  });

  it('a connection refused with ALLOW_CONNECTIONS false is unavailable (503), and the store recovers when it is allowed again', async () => {
    const schema = randomSchema('refused');
    store = createPostgresStorage({ connectionString: scratch.url, schema, listen: false, ...deadlines });
    await migrate(store.pool, { schema });
    expect(await store.getAccount('nobody')).toBeNull();
    await allowConnections(false);
    await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [scratch.name]);
    // Once the pool dropped its terminated connection, the next call has to open one.
    await eventually(() => (store!.pool as pg.Pool).totalCount === 0);
    const refused = await timed(store.getAccount('nobody'));
    expect(refused.error).toBeInstanceOf(StorageUnavailableError);
    expect(String((refused.error as Error).cause)).toMatch(/not currently accepting connections/);
    const transaction = await timed(store.acquireEventStreamSlot('a', 'l1', { max: 4, now: T0, ttlMs: 60_000 }));
    expect(transaction.error).toBeInstanceOf(StorageUnavailableError);
    await allowConnections(true);
    expect(await store.getAccount('nobody')).toBeNull();
  });
});

if (!DATABASE_URL) {
  describe('storage-postgres deadlines', () => {
    it.skip(`through a frozen connection (skipped: ${NEEDS_SERVER})`, () => {});
  });
}
