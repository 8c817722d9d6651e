// Server side of A1P and A2P (servers/tilecast-apns.mjs <mode> postgres): the store on
// PostgreSQL at DATABASE_URL, in a schema that each server process starts empty, and the
// fleet's phones and APNs tokens written straight into the store's tables. Registering
// 10,000 phones one by one through the store (three statements each) would take minutes
// per process on a loaded machine; the server under test still reads every token through
// @tilecast/storage-postgres, as it would tokens the device API registered.
import { createPostgresStorage, migrate } from '@tilecast/storage-postgres';
import pg from 'pg';

const SCHEMA = 'tilecast_bench_apns';

/** The store in a fresh schema, on a default pool (as D1's). */
export async function freshPostgresStorage(url) {
  const pool = new pg.Pool({ connectionString: url });
  await pool.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
  await migrate(pool, { schema: SCHEMA });
  return { storage: createPostgresStorage({ pool, schema: SCHEMA }), seed: (phones, activityTokens) => seed(pool, phones, activityTokens) };
}

/**
 * Writes `phones` ({id, account, widgets?}: a device with a production APNs registration,
 * and its WidgetKit token when given) and `activityTokens` ({device, account, slug, token}:
 * the update token of a Live Activity that exists), in one transaction. The devices' token
 * hashes are `seeded:<id>`, which no device token hashes to: these phones are only pushed
 * to, never signed in.
 */
async function seed(pool, phones, activityTokens = []) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      `INSERT INTO ${SCHEMA}.devices (id, account_id, token_hash) SELECT id, account, 'seeded:' || id FROM unnest($1::text[], $2::text[]) AS p(id, account)`,
      [phones.map((p) => p.id), phones.map((p) => p.account)],
    );
    await client.query(
      `INSERT INTO ${SCHEMA}.apns_registrations (device_id, environment, push_to_start, widgets) SELECT id, 'production', NULL, widgets FROM unnest($1::text[], $2::text[]) AS p(id, widgets)`,
      [phones.map((p) => p.id), phones.map((p) => p.widgets ?? null)],
    );
    await client.query(
      `INSERT INTO ${SCHEMA}.apns_activity_tokens (device_id, account_id, slug, token) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[])`,
      [activityTokens.map((a) => a.device), activityTokens.map((a) => a.account), activityTokens.map((a) => a.slug), activityTokens.map((a) => a.token)],
    );
    await client.query('COMMIT');
    // Fresh statistics: the planner sees 10,000 rows, not the empty tables it was created with.
    await client.query(`ANALYZE ${SCHEMA}.devices, ${SCHEMA}.apns_registrations, ${SCHEMA}.apns_activity_tokens`);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
