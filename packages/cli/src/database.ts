import { createManagementApi, type ManagementApi } from '@tilecast/core';
import { createPostgresStorage, LATEST_VERSION, migrate, type MigrateResult, type PostgresStorage, readSchemaVersion } from '@tilecast/storage-postgres';
import pg from 'pg';
import { usageError } from './errors.js';
import type { DatabaseSettings } from './settings.js';

/** The deployment's database, opened at the first use (help and usage errors never connect). */
export interface Database {
  readonly settings: DatabaseSettings;
  /** The core's management API on the schema; refuses a schema older than this CLI's migrations. */
  management(): Promise<ManagementApi>;
  /** Creates or upgrades the schema's tables (what the reference server does at start). */
  migrate(): Promise<MigrateResult>;
  close(): Promise<void>;
}

export function openDatabase(settings: DatabaseSettings): Database {
  let opened: { pool: pg.Pool; storage: PostgresStorage } | undefined;
  const open = () => {
    if (opened) return opened;
    const { deadlines } = settings;
    // As the reference server: connect within the connect deadline, and the server drops
    // statements past the statement deadline; the store adds its own deadlines on top.
    const pool = new pg.Pool({
      connectionString: settings.url,
      connectionTimeoutMillis: deadlines.connectTimeoutMs,
      statement_timeout: deadlines.statementTimeoutMs,
      max: 2,
    });
    pool.on('error', () => {}); // an idle connection dropped: the next query reports it
    let storage: PostgresStorage;
    try {
      storage = createPostgresStorage({ pool, schema: settings.schema, listen: false, ...deadlines });
    } catch (error) {
      // Before any I/O, only the settings can be wrong: the schema name.
      void pool.end();
      throw usageError(
        `invalid schema "${settings.schema}": ${error instanceof Error ? error.message.replace(/^@tilecast\/storage-postgres: /, '') : String(error)}`,
      );
    }
    opened = { pool, storage };
    return opened;
  };

  return {
    settings,
    async management() {
      const { pool, storage } = open();
      const version = await readSchemaVersion(pool, { schema: settings.schema });
      if (version < LATEST_VERSION) {
        const state = version === 0 ? 'has no Tilecast tables' : `is at version ${version}, this CLI needs ${LATEST_VERSION}`;
        throw usageError(
          `schema "${settings.schema}" at ${settings.where} ${state}: run \`tilecast migrate\` first (or check --schema / TILECAST_DATABASE_SCHEMA)`,
        );
      }
      return createManagementApi(storage);
    },
    migrate() {
      return migrate(open().pool, { schema: settings.schema });
    },
    async close() {
      if (!opened) return;
      await opened.storage.close();
      await opened.pool.end();
    },
  };
}
