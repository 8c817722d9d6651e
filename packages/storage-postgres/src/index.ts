import { guardUnholdable, type Storage } from '@tilecast/core/storage';
import pg from 'pg';
import { accountMethods } from './accounts.js';
import { activityMethods } from './activities.js';
import { apnsMethods } from './apns.js';
import { createIfAbsentMethod } from './create-if-absent.js';
import { credentialMethods } from './credentials.js';
import { deliveryJobMethods } from './delivery-jobs.js';
import { type Ctx, DEFAULT_SCHEMA, type PoolLike, eventChannel, tables } from './db.js';
import { type Deadlines, DEFAULT_DEADLINES, guardedPool, readDeadlines } from './deadlines.js';
import { deviceMethods } from './devices.js';
import { eventMethods } from './events.js';
import { fcmMethods } from './fcm.js';
import { deviceStreamSlotMethods, eventStreamSlotMethods } from './stream-slots.js';
import { EventListener, type ListenClient } from './listener.js';
import { pressMethods } from './presses.js';
import { purgeExpired } from './purge.js';
import { webhookMethods } from './webhooks.js';
import { widgetMethods } from './widgets.js';

export { migrate, readSchemaVersion, LATEST_VERSION, type MigrateOptions, type MigrateResult } from './migrations.js';
export { pgliteAsPool, type PGliteLike } from './pglite.js';
export type { PoolLike, PoolClientLike, Queryable, QueryResultLike } from './db.js';
export type { ListenClient } from './listener.js';
export { DEFAULT_SCHEMA, DEFAULT_DEADLINES, type Deadlines };
export { isConnectionFailure } from './deadlines.js';

/**
 * Deadlines (milliseconds, 5 000 each by default). A store that does not answer in time
 * throws `StorageUnavailableError` (a `503`) and recovers by itself when it answers again.
 * - `connectTimeoutMs`: opening a connection. Applies to the store's own pool and to its
 *   `LISTEN` connection; a host's `pool` opens connections with its own
 *   `connectionTimeoutMillis` (set one: pg's default is none).
 * - `acquireTimeoutMs`: getting a connection from the pool (waiting for a free one or
 *   opening one). Applies to every pool, the host's included.
 * - `statementTimeoutMs`: each statement, measured by the store (it holds even when the
 *   server is frozen); a statement past it fails and its connection is discarded. Applies
 *   to every pool. The store's own pool also sends it to the server as `statement_timeout`,
 *   so the server stops working on a statement the store gave up on.
 */
export interface PostgresStorageOptions extends Partial<Deadlines> {
  /**
   * The host's pool (`pg.Pool`, or anything with the same `query`/`connect`). The store
   * never ends it: `close()` leaves it to its owner.
   */
  pool?: PoolLike;
  /** Convenience when no pool is given: the store opens (and on `close()` ends) its own pool. */
  connectionString?: string;
  /** Schema holding the tables (the one given to `migrate`). Default `tilecast`. */
  schema?: string;
  /**
   * Cross-instance wake-ups (`subscribeEvents`) over `LISTEN/NOTIFY`. Default true; the
   * dedicated connection opens at the first subscription only. Appends always notify.
   */
  listen?: boolean;
  /**
   * Opens the dedicated `LISTEN` connection (not yet connected). Default: a `pg.Client`
   * with the connection string, or the options of the given `pg.Pool`. Without either (a
   * pool that is not a `pg.Pool`), the store has no `subscribeEvents`.
   */
  listenClient?: () => ListenClient;
  /**
   * Reconnect backoff and connection check of the `LISTEN` connection. Every
   * `heartbeatMs` (default 30 s) a query with the statement deadline checks it: a frozen
   * connection is dropped and reconnected.
   */
  listenTiming?: { minDelayMs?: number; maxDelayMs?: number; heartbeatMs?: number };
  /**
   * Reports trouble the store recovers from by itself (the `LISTEN` connection dropping,
   * an idle connection of its own pool failing). Default: ignored.
   */
  onError?: (error: Error) => void;
}

/** The PostgreSQL `Storage`, plus what hosts and tests need around it. */
export interface PostgresStorage extends Storage {
  /** The schema this store uses. */
  readonly schema: string;
  /** The pool it queries (the host's, or its own). */
  readonly pool: PoolLike;
  /**
   * Resolves once the `LISTEN` connection is in place (it opens at the first
   * `subscribeEvents`); events committed after that always wake the subscribers.
   */
  listening(): Promise<void>;
  /** How many times the `LISTEN` connection was (re)established. */
  listenConnections(): number;
}

/**
 * Creates the PostgreSQL store. The tables must exist: run `migrate(pool, { schema })`
 * first (the store never migrates by itself). Every atomic operation is one statement or
 * one transaction behind a row or advisory lock, so any number of instances (stores on
 * other pools, in other processes) may share the database.
 */
export function createPostgresStorage(options: PostgresStorageOptions): PostgresStorage {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const t = tables(schema); // validates the name
  const onError = options.onError ?? (() => {});
  const deadlines = readDeadlines(options);
  let ownPool: pg.Pool | undefined;
  let db: PoolLike;
  if (options.pool) {
    db = options.pool;
  } else if (options.connectionString) {
    ownPool = new pg.Pool({
      connectionString: options.connectionString,
      connectionTimeoutMillis: deadlines.connectTimeoutMs,
      statement_timeout: deadlines.statementTimeoutMs,
    });
    ownPool.on('error', onError); // an idle client dropped: the pool replaces it
    db = ownPool;
  } else {
    throw new Error('@tilecast/storage-postgres: createPostgresStorage needs a pool or a connectionString');
  }
  // Every statement of the store goes through the deadlines and the outage classification.
  const ctx: Ctx = { db: guardedPool(db, deadlines), t, channel: eventChannel(schema) };

  const createClient = listenClientFactory(options, schema, deadlines.connectTimeoutMs);
  const timing = options.listenTiming ?? {};
  const listener =
    options.listen !== false && createClient
      ? new EventListener({
          createClient,
          channel: ctx.channel,
          counters: t.eventCounters,
          minDelayMs: timing.minDelayMs ?? 100,
          maxDelayMs: timing.maxDelayMs ?? 5_000,
          heartbeatMs: timing.heartbeatMs ?? 30_000,
          connectTimeoutMs: deadlines.connectTimeoutMs,
          statementTimeoutMs: deadlines.statementTimeoutMs,
          onError,
        })
      : undefined;

  let closed = false;
  const storage: PostgresStorage = {
    ...accountMethods(ctx),
    ...activityMethods(ctx),
    ...widgetMethods(ctx),
    ...deviceMethods(ctx),
    ...createIfAbsentMethod(ctx),
    ...credentialMethods(ctx),
    ...eventMethods(ctx),
    ...eventStreamSlotMethods(ctx),
    ...deviceStreamSlotMethods(ctx),
    ...pressMethods(ctx),
    ...deliveryJobMethods(ctx),
    ...webhookMethods(ctx),
    ...apnsMethods(ctx),
    ...fcmMethods(ctx),
    async purgeExpired({ now, batch }) {
      return purgeExpired(ctx, now, batch);
    },
    schema,
    pool: db,
    listening: () => (listener ? listener.ready() : Promise.reject(new Error('this store does not listen'))),
    listenConnections: () => listener?.connections ?? 0,
    async close() {
      if (closed) return;
      closed = true;
      await listener?.close();
      await ownPool?.end(); // never the host's pool
    },
  };
  if (listener) storage.subscribeEvents = (fn) => listener.subscribe(fn);
  // PostgreSQL refuses a NUL in text and turns a lone surrogate into U+FFFD (another
  // string): such a key or value never reaches a statement.
  return guardUnholdable(storage);
}

/** A `pg.Client` factory for the `LISTEN` connection, or undefined when none can be made. */
function listenClientFactory(options: PostgresStorageOptions, schema: string, connectionTimeoutMillis: number): (() => ListenClient) | undefined {
  if (options.listenClient) return options.listenClient;
  const application_name = `tilecast-listen:${schema}`.slice(0, 63);
  if (options.connectionString) {
    const connectionString = options.connectionString;
    return () => new pg.Client({ connectionString, keepAlive: true, application_name, connectionTimeoutMillis });
  }
  const poolOptions = (options.pool as { options?: unknown } | undefined)?.options;
  // A `pg.Pool` keeps its connection options in `options`: the listener connects alike.
  if (poolOptions !== null && typeof poolOptions === 'object') {
    const config = { ...(poolOptions as pg.ClientConfig) };
    return () => new pg.Client({ ...config, keepAlive: true, application_name, connectionTimeoutMillis });
  }
  return undefined;
}
