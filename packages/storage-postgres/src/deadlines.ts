import { StorageUnavailableError, isStorageUnavailable } from '@tilecast/core/storage';
import type { PoolClientLike, PoolLike, QueryResultLike, Statement } from './db.js';

/**
 * The store's deadlines and outage classification, in one place: every statement the
 * store runs goes through `guardedPool` (its `query`, and the clients of `connect` that
 * transactions use). So a store that does not answer fails fast with
 * `StorageUnavailableError` (a `503` for the request), never piles requests up, and
 * recovers by itself: nothing here is sticky but the discarded connection.
 */

/** Milliseconds; a few seconds each by default (docs/contract/limits-and-errors.md#storage-deadlines). */
export interface Deadlines {
  /** Opening one connection (TCP, TLS, startup and authentication). */
  connectTimeoutMs: number;
  /** Getting a connection from the pool: waiting for a free one, or opening one. */
  acquireTimeoutMs: number;
  /** One statement, from sending it to its last row. */
  statementTimeoutMs: number;
}

export const DEFAULT_DEADLINES: Deadlines = { connectTimeoutMs: 5_000, acquireTimeoutMs: 5_000, statementTimeoutMs: 5_000 };

export function readDeadlines(options: Partial<Deadlines>): Deadlines {
  const deadlines = { ...DEFAULT_DEADLINES };
  for (const name of Object.keys(DEFAULT_DEADLINES) as (keyof Deadlines)[]) {
    const value = options[name];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value <= 0) {
      throw new Error(`@tilecast/storage-postgres: ${name} must be a positive integer (milliseconds), got ${String(value)}`);
    }
    deadlines[name] = value;
  }
  return deadlines;
}

/** Socket-level failures: the server is unreachable or the connection broke. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EADDRNOTAVAIL',
]);

/**
 * SQLSTATEs of a server that is going away or full: `admin_shutdown`, `crash_shutdown`,
 * `cannot_connect_now` (starting up, recovery), `too_many_connections`. Class `08`
 * (connection exceptions) is matched by prefix.
 */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

/**
 * SQLSTATEs with which the server refuses a new connection for now, outages only while
 * connecting: `55000` is a database that does not accept connections (`ALLOW_CONNECTIONS
 * false`, as for maintenance), whereas in a statement it is a bug's. A database that does
 * not exist (`3D000`) or a refused login (`28P01`) stays a misconfiguration.
 */
const REFUSED_CONNECTION_STATES = new Set(['55000']);

/** What `pg` and `pg-pool` say when a connection broke, timed out or could not be had. */
const DRIVER_MESSAGES = [
  'Connection terminated', // "... unexpectedly", "... due to connection timeout"
  'timeout exceeded when trying to connect', // pg-pool: connectionTimeoutMillis while waiting
  'timeout expired', // pg: connectionTimeoutMillis while connecting
  'Query read timeout', // pg: query_timeout (a host's pool may set it)
  'Client has encountered a connection error and is not queryable',
];

/**
 * True for a failure that goes away when the server answers again. `57014`
 * (`query_canceled`) counts only when a statement timeout caused it: the store's own
 * server-side deadline, or the host's `statement_timeout`; a cancel by an operator is not
 * an outage.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_STATES.has(code) || code.startsWith('08')) return true;
    if (code === '57014') return text.includes('statement timeout');
  }
  return DRIVER_MESSAGES.some((known) => text.startsWith(known));
}

/** The driver's own deadlines (connecting, waiting for the pool, the server's statement timeout), as opposed to a broken connection. */
const DEADLINE_MESSAGES = [
  'timeout exceeded when trying to connect',
  'timeout expired',
  'Query read timeout',
  'Connection terminated due to connection timeout',
];

function isDeadlineFailure(error: unknown): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  const text = typeof message === 'string' ? message : '';
  return code === '57014' || code === 'ETIMEDOUT' || DEADLINE_MESSAGES.some((known) => text.startsWith(known));
}

/** The error to throw: a connection failure becomes `StorageUnavailableError` (cause kept), anything else stays as it is. */
export function classify(error: unknown): unknown {
  if (isStorageUnavailable(error) || !isConnectionFailure(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new StorageUnavailableError(`PostgreSQL unavailable: ${message}`, { cause: error, deadline: isDeadlineFailure(error) });
}

/** The error to throw when no connection could be opened: `classify`, and a refused connection is an outage too. */
export function classifyConnectFailure(error: unknown): unknown {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  if (typeof code !== 'string' || !REFUSED_CONNECTION_STATES.has(code)) return classify(error);
  const message = error instanceof Error ? error.message : String(error);
  return new StorageUnavailableError(`PostgreSQL unavailable: connection refused (${message})`, { cause: error });
}

/**
 * The pool every store operation uses: `pool` with the acquire and statement deadlines and
 * the outage classification. A connection whose statement missed its deadline, or that
 * failed at the connection level, is discarded (`release(error)`: `pg-pool` destroys it)
 * instead of going back to the pool in an unknown state.
 */
export function guardedPool(pool: PoolLike, deadlines: Pick<Deadlines, 'acquireTimeoutMs' | 'statementTimeoutMs'>): PoolLike {
  const acquire = (): Promise<PoolClientLike> =>
    new Promise((resolve, reject) => {
      let late = false;
      const timer = setTimeout(() => {
        late = true;
        reject(new StorageUnavailableError(`PostgreSQL unavailable: no connection within ${deadlines.acquireTimeoutMs} ms`, { deadline: true }));
      }, deadlines.acquireTimeoutMs);
      pool.connect().then(
        (client) => {
          if (late) return client.release(); // it came after all: back to the pool, unused
          clearTimeout(timer);
          resolve(new GuardedClient(client, deadlines.statementTimeoutMs));
        },
        (error: unknown) => {
          if (late) return;
          clearTimeout(timer);
          reject(classifyConnectFailure(error));
        },
      );
    });

  return {
    connect: acquire,
    async query<R>(statement: Statement, values?: unknown[]): Promise<QueryResultLike<R>> {
      const client = await acquire();
      try {
        return await client.query<R>(statement, values);
      } finally {
        client.release();
      }
    },
  };
}

/** The part of a `pg` client's events the guard listens to (the PGlite shim has none). */
interface Emitter {
  on(event: 'error', listener: (error: Error) => void): unknown;
  removeListener(event: 'error', listener: (error: Error) => void): unknown;
}

const isEmitter = (value: unknown): value is Emitter => typeof (value as Emitter).on === 'function' && typeof (value as Emitter).removeListener === 'function';

/**
 * A checked-out connection with a deadline on each statement. Once broken (a missed
 * deadline, a connection-level failure) it runs nothing more and its release discards it.
 */
class GuardedClient implements PoolClientLike {
  #broken: Error | undefined;
  #released = false;
  readonly #onError = (error: Error): void => {
    // A checked-out pg client has no pool listener: a connection that dies between two
    // statements would otherwise be an uncaught 'error' event.
    this.#broken ??= error;
  };

  constructor(
    private readonly client: PoolClientLike,
    private readonly statementTimeoutMs: number,
  ) {
    if (isEmitter(client)) client.on('error', this.#onError);
  }

  query<R>(statement: Statement, values?: unknown[]): Promise<QueryResultLike<R>> {
    const broken = this.#broken;
    if (broken) return Promise.reject(isStorageUnavailable(broken) ? broken : unavailable(broken));
    return new Promise((resolve, reject) => {
      let settled = false;
      const timer = setTimeout(() => {
        settled = true;
        const error = new StorageUnavailableError(`PostgreSQL unavailable: statement did not complete within ${this.statementTimeoutMs} ms`, {
          deadline: true,
        });
        this.#broken = error;
        reject(error);
      }, this.statementTimeoutMs);
      this.client.query<R>(statement, values).then(
        (result) => {
          if (settled) return;
          clearTimeout(timer);
          resolve(result);
        },
        (error: unknown) => {
          if (settled) return; // the deadline already answered; the connection is being discarded
          clearTimeout(timer);
          const classified = classify(error);
          if (isStorageUnavailable(classified)) this.#broken = classified;
          reject(classified);
        },
      );
    });
  }

  release(error?: Error | boolean): void {
    if (this.#released) return;
    this.#released = true;
    // A discarded connection keeps the listener: it may still report its end.
    if (isEmitter(this.client) && !this.#broken) this.client.removeListener('error', this.#onError);
    this.client.release(this.#broken ?? error);
  }
}

function unavailable(cause: Error): StorageUnavailableError {
  return new StorageUnavailableError(`PostgreSQL unavailable: connection lost (${cause.message})`, { cause });
}
