/**
 * Both stores for end-to-end tests: memory, and PostgreSQL (the local server the global
 * setup found, else PGlite in-process). Each PostgreSQL store gets its own random schema,
 * dropped when the store is released.
 */
import { randomBytes } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import type { Storage } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createPostgresStorage, migrate, pgliteAsPool, type PoolLike } from '@tilecast/storage-postgres';
import pg from 'pg';

export type StoreName = 'memory' | 'postgres';
export const stores: StoreName[] = ['memory', 'postgres'];

export interface TestStore {
  storage: Storage;
  /** Drops what the store created (its schema); call after the service using it closed. */
  release(): Promise<void>;
}

export async function openStore(name: StoreName): Promise<TestStore> {
  if (name === 'memory') return { storage: createMemoryStorage(), release: async () => {} };
  const schema = `tc_e2e_${randomBytes(5).toString('hex')}`;
  const url = process.env.DATABASE_URL;
  let pool: PoolLike;
  let end: () => Promise<void>;
  if (url) {
    const real = new pg.Pool({ connectionString: url, max: 4 });
    real.on('error', () => {});
    pool = real;
    end = () => real.end();
  } else {
    const db = await PGlite.create();
    pool = pgliteAsPool(db);
    end = () => db.close();
  }
  await migrate(pool, { schema });
  const storage = createPostgresStorage({ pool, schema, listen: false });
  return {
    storage,
    release: async () => {
      await storage.close();
      await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await end();
    },
  };
}
