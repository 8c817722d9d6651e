import type { Storage } from '@tilecast/core';
import pg from 'pg';
import { accountMethods } from './accounts.js';
import { activityMethods } from './activities.js';
import { createIfAbsentMethod } from './create-if-absent.js';
import { credentialMethods } from './credentials.js';
import { type Ctx, DEFAULT_SCHEMA, type PoolLike, eventChannel, tables } from './db.js';
import { deviceMethods } from './devices.js';
import { eventMethods } from './events.js';
import { leaseMethods } from './leases.js';
import { EventListener, type ListenClient } from './listener.js';
import { pressMethods } from './presses.js';
import { purgeExpired } from './purge.js';
import { throttleMethods } from './throttle.js';
import { guardUnholdable } from './unholdable.js';
import { webhookMethods } from './webhooks.js';
import { widgetMethods } from './widgets.js';

export { migrate, LATEST_VERSION, type MigrateOptions, type MigrateResult } from './migrations.js';
export { pgliteAsPool, type PGliteLike } from './pglite.js';
export type { PoolLike, PoolClientLike, Queryable, QueryResultLike } from './db.js';
export type { ListenClient } from './listener.js';
export { DEFAULT_SCHEMA };

export interface PostgresStorageOptions {
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
  /** Reconnect backoff and connection check of the `LISTEN` connection. */
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
  let ownPool: pg.Pool | undefined;
  let db: PoolLike;
  if (options.pool) {
    db = options.pool;
  } else if (options.connectionString) {
    ownPool = new pg.Pool({ connectionString: options.connectionString });
    ownPool.on('error', onError); // an idle client dropped: the pool replaces it
    db = ownPool;
  } else {
    throw new Error('@tilecast/storage-postgres: createPostgresStorage needs a pool or a connectionString');
  }
  const ctx: Ctx = { db, t, channel: eventChannel(schema) };

  const createClient = listenClientFactory(options, schema);
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
          onError,
        })
      : undefined;

  let closed = false;
  const storage: PostgresStorage = {
    ...guardUnholdable({
      ...accountMethods(ctx),
      ...activityMethods(ctx),
      ...widgetMethods(ctx),
      ...deviceMethods(ctx),
      ...createIfAbsentMethod(ctx),
      ...credentialMethods(ctx),
      ...eventMethods(ctx),
      ...leaseMethods(ctx),
      ...pressMethods(ctx),
      ...throttleMethods(ctx),
      ...webhookMethods(ctx),
    }),
    async purgeExpired(now, batch) {
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
  return storage;
}

/** A `pg.Client` factory for the `LISTEN` connection, or undefined when none can be made. */
function listenClientFactory(options: PostgresStorageOptions, schema: string): (() => ListenClient) | undefined {
  if (options.listenClient) return options.listenClient;
  const application_name = `tilecast-listen:${schema}`.slice(0, 63);
  if (options.connectionString) {
    const connectionString = options.connectionString;
    return () => new pg.Client({ connectionString, keepAlive: true, application_name });
  }
  const poolOptions = (options.pool as { options?: unknown } | undefined)?.options;
  // A `pg.Pool` keeps its connection options in `options`: the listener connects alike.
  if (poolOptions !== null && typeof poolOptions === 'object') {
    const config = { ...(poolOptions as pg.ClientConfig) };
    return () => new pg.Client({ ...config, keepAlive: true, application_name });
  }
  return undefined;
}
