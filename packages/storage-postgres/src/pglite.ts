import type { PoolClientLike, PoolLike, QueryResultLike, Statement } from './db.js';

/** The part of a PGlite instance (`@electric-sql/pglite`) the shim uses. */
export interface PGliteLike {
  query<R>(text: string, params?: unknown[]): Promise<{ rows: R[]; affectedRows?: number }>;
}

/**
 * Wraps one PGlite instance (an in-process PostgreSQL, handy in tests on machines without
 * a server) as the pool this store expects. PGlite has a single connection, so the shim
 * hands it to one user at a time: `connect()` holds it until `release()` (a whole
 * transaction), and `query()` waits its turn. Never call the pool's `query()` while
 * holding a client of the same shim: it would wait forever (the store never does).
 *
 * There is no second connection, so there is no `LISTEN` connection either: a store on
 * this shim has no `subscribeEvents`. The shim never closes the PGlite instance.
 */
export function pgliteAsPool(db: PGliteLike): PoolLike {
  let tail: Promise<void> = Promise.resolve();
  const lock = (): Promise<() => void> => {
    let unlock!: () => void;
    const held = new Promise<void>((resolve) => (unlock = resolve));
    const previous = tail;
    tail = previous.then(() => held);
    return previous.then(() => unlock);
  };
  const run = async <R>(statement: Statement, values?: unknown[]): Promise<QueryResultLike<R>> => {
    const result = await db.query<R>(typeof statement === 'string' ? statement : statement.text, values);
    return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
  };
  return {
    async query<R>(statement: Statement, values?: unknown[]) {
      const unlock = await lock();
      try {
        return await run<R>(statement, values);
      } finally {
        unlock();
      }
    },
    async connect(): Promise<PoolClientLike> {
      const unlock = await lock();
      let released = false;
      return {
        query: run,
        release(err?: Error | boolean) {
          if (released) return;
          released = true;
          // A client given back broken may still be inside a transaction: end it first.
          if (err)
            void db
              .query('ROLLBACK')
              .catch(() => undefined)
              .finally(unlock);
          else unlock();
        },
      };
    },
  };
}
