/**
 * The store settings a reference-server test runs under: in memory, and on PostgreSQL (a
 * schema of its own per use, dropped after the file) when a server is there.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

export type StoreSettings = [name: string, settings: () => Record<string, string>];

/** The stores to run on; call at the top of a test file (it registers the schemas' clean-up). */
export function storeSettings(schemaPrefix: string): StoreSettings[] {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const schemas: string[] = [];
  afterAll(async () => {
    if (schemas.length === 0) return;
    const admin = new pg.Pool({ connectionString: databaseUrl });
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  const postgres = (): Record<string, string> => {
    const schema = `${schemaPrefix}_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    schemas.push(schema);
    return { DATABASE_URL: databaseUrl!, TILECAST_DATABASE_SCHEMA: schema };
  };
  return [['memory', () => ({ DATABASE_URL: '' })], ...(databaseUrl ? [['PostgreSQL', postgres] as StoreSettings] : [])];
}
