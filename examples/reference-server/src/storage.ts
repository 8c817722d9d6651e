import pg from 'pg';
import type { Logger, Storage } from '@tilecast/core';
import type { ServerConfig } from './config.js';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createPostgresStorage, migrate } from '@tilecast/storage-postgres';

export interface OpenedStorage {
  storage: Storage;
  /** What the banner says about where data lives. */
  description: string;
  /** Resolves once cross-instance wake-ups are in place (call after Tilecast subscribed). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * PostgreSQL when `DATABASE_URL` is set (migrations applied at start, so several
 * instances can share the database), in-memory storage otherwise.
 */
export async function openStorage(
  databaseUrl: string | null,
  schema: string,
  logger: Logger,
  deadlines: ServerConfig['databaseDeadlines'],
): Promise<OpenedStorage> {
  if (databaseUrl === null) {
    const storage = createMemoryStorage();
    return { storage, description: 'in-memory storage (data is lost on exit)', ready: async () => {}, close: () => storage.close() };
  }
  // The pool is ours (migrations run on it first): it connects within the connect deadline
  // and asks the server to drop statements past the statement deadline; the store adds the
  // acquire and statement deadlines of its own (a frozen server cannot enforce any).
  const pool = new pg.Pool({
    connectionString: databaseUrl,
    connectionTimeoutMillis: deadlines.connectTimeoutMs,
    statement_timeout: deadlines.statementTimeoutMs,
  });
  pool.on('error', (error) => logger.warn('idle PostgreSQL connection failed', { error: error.message }));
  try {
    const { applied, version } = await migrate(pool, { schema });
    if (applied.length > 0) logger.info('database migrated', { applied, version });
  } catch (error) {
    await pool.end();
    throw new Error(`cannot use DATABASE_URL: ${error instanceof Error ? error.message : String(error)}`);
  }
  const storage = createPostgresStorage({ pool, schema, ...deadlines, onError: (error) => logger.warn('PostgreSQL listener', { error: String(error) }) });
  return {
    storage,
    description: `PostgreSQL storage (${redact(databaseUrl)}, schema ${schema})`,
    ready: () => storage.listening(),
    async close() {
      await storage.close();
      await pool.end();
    },
  };
}

/** Query parameters of a connection string that carry a secret (libpq's `password`, `sslpassword`, ...). */
const SECRET_PARAMETER = /pass|secret|token|key/i;

/**
 * The connection string without its credentials, for the banner: the password of the user
 * part and every query parameter that carries a secret (`?password=` included) are `***`.
 */
export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const name of new Set(parsed.searchParams.keys())) if (SECRET_PARAMETER.test(name)) parsed.searchParams.set(name, '***');
    return parsed.toString();
  } catch {
    return 'DATABASE_URL';
  }
}
