import { createHash } from 'node:crypto';
/**
 * The small slice of `pg` this package uses. A `pg.Pool` satisfies `PoolLike` as it is;
 * so does the PGlite shim of `./pglite.ts` (tests without a PostgreSQL server).
 */
export interface QueryResultLike<R> {
  rows: R[];
  rowCount: number | null;
}

/**
 * A statement's text, or a named one: PostgreSQL parses and plans a named statement once
 * per connection (pg's prepared statements), which the hottest statements use.
 */
export type Statement = string | { name: string; text: string };

/**
 * A named statement for `text`. The name is derived from the text, so two stores (other
 * schemas, other texts) on one pool never claim the same name for different statements.
 */
export function prepared(text: string): { name: string; text: string } {
  return { name: `tilecast_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`, text };
}

export interface Queryable {
  query<R = Record<string, unknown>>(statement: Statement, values?: unknown[]): Promise<QueryResultLike<R>>;
}

export interface PoolClientLike extends Queryable {
  release(err?: Error | boolean): void;
}

export interface PoolLike extends Queryable {
  connect(): Promise<PoolClientLike>;
}

/** The default schema: every table lives in it, so the store can share an existing database. */
export const DEFAULT_SCHEMA = 'tilecast';

const SCHEMA_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,47}$/;

/**
 * Validates a schema name (letters, digits, `_`; at most 48 characters, so derived names
 * such as the notification channel stay within PostgreSQL's 63-byte identifiers) and
 * returns it double-quoted. Quoting keeps the case exactly as given.
 */
export function quoteSchema(schema: string): string {
  if (typeof schema !== 'string' || !SCHEMA_NAME.test(schema)) {
    throw new Error(
      `@tilecast/storage-postgres: invalid schema name ${JSON.stringify(schema)} (use letters, digits and _, at most 48 characters, not starting with a digit)`,
    );
  }
  return `"${schema}"`;
}

/** Quoted, schema-qualified names of every table. */
export interface Tables {
  schema: string;
  accounts: string;
  activities: string;
  widgets: string;
  widgetShares: string;
  webhookOutcomes: string;
  devices: string;
  eventCounters: string;
  events: string;
  streamLeases: string;
  deviceStreamLeases: string;
  tokenBuckets: string;
  pressKeys: string;
  pressNotes: string;
  /** The widget push throttle of versions 1 to 4, dropped by migration 5: named for the migrations only. */
  throttleWindows: string;
  webhookClaims: string;
  apnsRegistrations: string;
  apnsActivityTokens: string;
  fcmTokens: string;
  deliveryJobs: string;
  /** The sequence every job generation is drawn from. */
  deliveryGenerations: string;
  deadLetters: string;
  /** Which activity and environment each broadcast channel id belongs to. */
  activityChannels: string;
  migrations: string;
}

export function tables(schema: string): Tables {
  const q = quoteSchema(schema);
  return {
    schema: q,
    accounts: `${q}.accounts`,
    activities: `${q}.activities`,
    widgets: `${q}.widgets`,
    widgetShares: `${q}.widget_shares`,
    webhookOutcomes: `${q}.webhook_outcomes`,
    devices: `${q}.devices`,
    eventCounters: `${q}.event_counters`,
    events: `${q}.events`,
    streamLeases: `${q}.stream_leases`,
    deviceStreamLeases: `${q}.device_stream_leases`,
    tokenBuckets: `${q}.token_buckets`,
    pressKeys: `${q}.press_keys`,
    pressNotes: `${q}.press_notes`,
    throttleWindows: `${q}.throttle_windows`,
    webhookClaims: `${q}.webhook_claims`,
    apnsRegistrations: `${q}.apns_registrations`,
    apnsActivityTokens: `${q}.apns_activity_tokens`,
    fcmTokens: `${q}.fcm_tokens`,
    deliveryJobs: `${q}.delivery_jobs`,
    deliveryGenerations: `${q}.delivery_generations`,
    deadLetters: `${q}.dead_letters`,
    activityChannels: `${q}.activity_channels`,
    migrations: `${q}.migrations`,
  };
}

/** The `LISTEN/NOTIFY` channel of a schema's event log. */
export const eventChannel = (schema: string): string => `${schema}_events`;

/** Everything an operation needs: the pool, the table names and the channel. */
export interface Ctx {
  db: PoolLike;
  t: Tables;
  channel: string;
}

const RETRYABLE = new Set(['40P01', '40001']); // deadlock detected, serialization failure

/**
 * Runs `fn` in one transaction on one pooled connection (READ COMMITTED: each statement
 * sees everything committed before it started, which the lock-then-read operations rely on).
 * A deadlock or serialization failure rolls back and runs `fn` again, at most 3 times.
 */
export async function transaction<T>(db: PoolLike, fn: (client: Queryable) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await db.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (error) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection is unusable: tell the pool to discard it.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      if (attempt < 3 && RETRYABLE.has(errorCode(error) ?? '')) continue;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

/** `unique_violation` on the given constraint. */
export const isUniqueViolation = (error: unknown, constraint: string): boolean =>
  errorCode(error) === '23505' &&
  typeof error === 'object' &&
  error !== null &&
  (('constraint' in error && error.constraint === constraint) ||
    ('message' in error && typeof error.message === 'string' && error.message.includes(constraint)));

/** A row's foreign key no longer found its parent (a device or activity removed meanwhile). */
export const isForeignKeyViolation = (error: unknown): boolean => errorCode(error) === '23503';

/** An insert whose parent row (device, activity) went away meanwhile wrote nothing: false. */
export async function insertedAny(insert: Promise<{ rowCount?: number | null }>): Promise<boolean> {
  try {
    return ((await insert).rowCount ?? 0) > 0;
  } catch (error) {
    if (isForeignKeyViolation(error)) return false;
    throw error;
  }
}

/** Numbers come back as strings (`bigint` in pg) or bigints (PGlite): normalise. */
export const num = (value: unknown): number => Number(value);

/** JSON travels as text both ways, so object key order is kept exactly (a `json` column, not `jsonb`). */
export const toJson = (value: unknown): string | null => (value === undefined ? null : JSON.stringify(value));
