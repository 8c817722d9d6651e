/**
 * Cross-instance wake-ups: one dedicated connection per store `LISTEN`s on the schema's
 * channel; `appendEvent` sends `pg_notify(channel, accountId)` in its own transaction, so a
 * wake-up goes out exactly when the event is committed (never for a rolled-back one) and
 * carries only the account id: readers read the rows from the table.
 *
 * A notification is lost when nobody listens, so after the connection drops the listener
 * reconnects (backoff) and catches up: it wakes every account whose latest append is not
 * visible in a snapshot taken while it was surely still listening (the counter row keeps
 * the appending transaction id; `pg_visible_in_snapshot` tells which came later). Wake-ups
 * may be spurious (harmless: a stream re-reads and finds nothing), never missing.
 */

/** The part of `pg.Client` the listener uses. */
export interface ListenClient {
  connect(): Promise<unknown>;
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
  on(event: 'end', listener: () => void): unknown;
  end(): Promise<unknown>;
}

export interface ListenerOptions {
  /** Opens a new, not yet connected client (called again for every reconnect). */
  createClient: () => ListenClient;
  channel: string;
  /** Quoted, schema-qualified name of the event counter table. */
  counters: string;
  /** First reconnect delay; doubles up to `maxDelayMs`. */
  minDelayMs: number;
  maxDelayMs: number;
  /** How often the connection is checked (and the catch-up snapshot refreshed). */
  heartbeatMs: number;
  /** Deadline of `connect()`: a server that accepts TCP but never answers is given up on. */
  connectTimeoutMs: number;
  /** Deadline of each query (the heartbeat's included): a frozen connection is dropped and reconnected. */
  statementTimeoutMs: number;
  /** Reports connection trouble (default: ignored; the listener recovers by itself). */
  onError: (error: Error) => void;
}

type Listener = (accountId: string) => void;

export class EventListener {
  readonly #options: ListenerOptions;
  readonly #listeners = new Set<Listener>();
  #client: ListenClient | undefined;
  /** Drops the current connection and schedules a reconnect (once per connection). */
  #drop: ((error?: Error) => void) | undefined;
  #started = false;
  #closed = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #delay: number;
  /**
   * Snapshot at least one heartbeat old (or taken before the LISTEN): every notification
   * of a transaction visible in it has reached us. The catch-up wakes whatever came later.
   */
  #older: string | undefined;
  #newer: string | undefined;
  #ready: { promise: Promise<void>; resolve: () => void };
  /** Number of completed (re)connections, for tests and diagnostics. */
  connections = 0;

  constructor(options: ListenerOptions) {
    this.#options = options;
    this.#delay = options.minDelayMs;
    this.#ready = deferred();
  }

  subscribe(listener: Listener): () => void {
    if (this.#closed) throw new Error('@tilecast/storage-postgres: subscribeEvents after close()');
    const entry: Listener = (accountId) => listener(accountId);
    this.#listeners.add(entry);
    if (!this.#started) {
      this.#started = true;
      void this.#connect();
    }
    return () => {
      this.#listeners.delete(entry);
    };
  }

  /** Resolves once the LISTEN is in place (after the first subscription). */
  ready(): Promise<void> {
    return this.#ready.promise;
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#listeners.clear();
    if (this.#timer) clearTimeout(this.#timer);
    const client = this.#client;
    this.#client = undefined;
    if (client) await client.end().catch(() => undefined);
  }

  #emit(accountId: string): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(accountId);
      } catch (error) {
        this.#options.onError(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }

  async #connect(): Promise<void> {
    if (this.#closed) return;
    const { channel, counters } = this.#options;
    const client = this.#options.createClient();
    this.#client = client;
    let dropped = false;
    const drop = (error?: Error): void => {
      if (dropped) return;
      dropped = true;
      if (error) this.#options.onError(error);
      if (this.#client === client) this.#client = undefined;
      client.end().catch(() => undefined);
      this.#scheduleReconnect();
    };
    this.#drop = drop;
    client.on('error', (error) => drop(error));
    client.on('end', () => drop());
    client.on('notification', (message) => {
      if (message.channel === channel && message.payload) this.#emit(message.payload);
    });
    const { connectTimeoutMs, statementTimeoutMs } = this.#options;
    const query = (text: string, values?: unknown[]) => withTimeout(client.query(text, values), statementTimeoutMs);
    try {
      await withTimeout(client.connect(), connectTimeoutMs);
      const before = await snapshot(query);
      await query(`LISTEN "${channel}"`);
      if (this.#older !== undefined) {
        // A reconnect: wake every account appended to since the last safe snapshot.
        const { rows } = await query(`SELECT account_id FROM ${counters} WHERE NOT pg_visible_in_snapshot(last_xid, $1::pg_snapshot)`, [this.#older]);
        for (const row of rows) this.#emit(String(row.account_id));
      }
      this.#older = before;
      this.#newer = await snapshot(query);
      if (dropped || this.#closed) return;
      this.connections += 1;
      this.#delay = this.#options.minDelayMs;
      this.#ready.resolve();
      this.#scheduleHeartbeat(client);
    } catch (error) {
      drop(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #scheduleReconnect(): void {
    if (this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    const delay = this.#delay;
    this.#delay = Math.min(this.#delay * 2, this.#options.maxDelayMs);
    this.#timer = setTimeout(() => void this.#connect(), delay);
    this.#timer.unref?.();
  }

  #scheduleHeartbeat(client: ListenClient): void {
    if (this.#closed) return;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#heartbeat(client), this.#options.heartbeatMs);
    this.#timer.unref?.();
  }

  /** Checks the connection (a stuck one is dropped) and moves the catch-up snapshot on. */
  async #heartbeat(client: ListenClient): Promise<void> {
    if (this.#closed || this.#client !== client) return;
    try {
      const fresh = await snapshot((text) => withTimeout(client.query(text), this.#options.statementTimeoutMs));
      if (this.#client !== client) return;
      this.#older = this.#newer;
      this.#newer = fresh;
      this.#scheduleHeartbeat(client);
    } catch (error) {
      if (this.#client !== client) return;
      this.#drop?.(error instanceof Error ? error : new Error(String(error)));
    }
  }
}

async function snapshot(query: (text: string) => Promise<{ rows: Array<Record<string, unknown>> }>): Promise<string> {
  const { rows } = await query('SELECT pg_current_snapshot()::text AS snapshot');
  return String(rows[0]!.snapshot);
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`listen connection did not answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
