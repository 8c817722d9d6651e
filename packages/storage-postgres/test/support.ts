import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { type PoolLike, migrate, pgliteAsPool } from '@tilecast/storage-postgres';
import pg from 'pg';

/** Real PostgreSQL when set; otherwise the tests run on PGlite (in-process). */
export const DATABASE_URL = process.env.DATABASE_URL || undefined;

export const NEEDS_SERVER = 'needs a real PostgreSQL server: set DATABASE_URL or run one on 127.0.0.1:5432';

/** A fresh schema name per test run (and per use), so runs never collide on a shared database. */
export const randomSchema = (label: string): string => `tc_${label}_${randomBytes(5).toString('hex')}`;

export interface Backend {
  kind: 'postgres' | 'pglite';
  /** A pool for setup and inspection (the test's own, ended by `end`). */
  admin: PoolLike;
  /** A new pool on the same database (PGlite: the one shared shim). */
  newPool(): PoolLike & { end?: () => Promise<void> };
  dropSchema(schema: string): Promise<void>;
  end(): Promise<void>;
}

export async function openBackend(): Promise<Backend> {
  if (DATABASE_URL) {
    const pools: pg.Pool[] = [];
    const newPool = () => {
      const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 10 });
      pool.on('error', () => {});
      pools.push(pool);
      return pool;
    };
    const admin = newPool();
    return {
      kind: 'postgres',
      admin,
      newPool,
      dropSchema: async (schema) => {
        await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      },
      end: async () => {
        await Promise.all(pools.map((pool) => (pool.ended ? undefined : pool.end())));
      },
    };
  }
  const db = await PGlite.create();
  const shim = pgliteAsPool(db);
  return {
    kind: 'pglite',
    admin: shim,
    newPool: () => shim,
    dropSchema: async (schema) => {
      await shim.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    },
    end: () => db.close(),
  };
}

export { migrate };
