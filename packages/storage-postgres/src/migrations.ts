import { DEFAULT_SCHEMA, type PoolLike, type Queryable, type Tables, tables, transaction } from './db.js';

/**
 * One migration: statements run in order, in the same transaction as every other pending
 * migration and the row recording it. Never edit a released migration: add a new one.
 */
interface Migration {
  version: number;
  name: string;
  statements: (t: Tables) => string[];
}

/**
 * Conventions of the tables:
 * - times are epoch milliseconds (`bigint`) from the caller's clock, never `now()`;
 * - JSON (content, envelopes, webhook maps) is `json`, kept as text, so object key order
 *   and every value round-trip exactly as given;
 * - ids are `text` compared exactly; lists are ordered with `COLLATE "C"` (code-unit order).
 * No foreign key ties rows to `accounts`: events, leases and activities may exist for an
 * account row that is absent (as in the memory store); `deleteAccount` removes them itself.
 */
const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'initial tables',
    statements: (t) => [
      `CREATE TABLE ${t.accounts} (
        id text PRIMARY KEY,
        token_hash text NOT NULL CONSTRAINT accounts_token_hash_key UNIQUE,
        subscription text NOT NULL,
        activity_quota integer NOT NULL
      )`,
      `CREATE TABLE ${t.activities} (
        account_id text NOT NULL,
        slug text NOT NULL,
        template text NOT NULL,
        dismissal_delay_s double precision NOT NULL,
        state text NOT NULL,
        live boolean NOT NULL,
        content json,
        updated_at bigint,
        PRIMARY KEY (account_id, slug)
      )`,
      `CREATE INDEX activities_live ON ${t.activities} (account_id) WHERE live`,
      `CREATE TABLE ${t.devices} (
        id text PRIMARY KEY,
        account_id text NOT NULL,
        token_hash text NOT NULL CONSTRAINT devices_token_hash_key UNIQUE
      )`,
      `CREATE INDEX devices_account ON ${t.devices} (account_id, id COLLATE "C")`,
      `CREATE TABLE ${t.widgets} (
        account_id text NOT NULL,
        slug text NOT NULL,
        template text NOT NULL,
        stale_after double precision,
        privacy text NOT NULL,
        content json,
        updated_at bigint,
        webhook_map json NOT NULL DEFAULT '{}',
        PRIMARY KEY (account_id, slug)
      )`,
      `CREATE TABLE ${t.widgetShares} (
        account_id text NOT NULL,
        slug text NOT NULL,
        device_id text NOT NULL REFERENCES ${t.devices} (id) ON DELETE CASCADE,
        PRIMARY KEY (account_id, slug, device_id),
        FOREIGN KEY (account_id, slug) REFERENCES ${t.widgets} (account_id, slug) ON DELETE CASCADE
      )`,
      `CREATE INDEX widget_shares_device ON ${t.widgetShares} (device_id)`,
      `CREATE TABLE ${t.webhookOutcomes} (
        account_id text NOT NULL,
        slug text NOT NULL,
        entry_key text NOT NULL,
        last_success_at text,
        last_failure_at text,
        PRIMARY KEY (account_id, slug, entry_key),
        FOREIGN KEY (account_id, slug) REFERENCES ${t.widgets} (account_id, slug) ON DELETE CASCADE
      )`,
      // One row per account: appends raise "last" under the row lock, so positions are
      // handed out in commit order; last_xid feeds the listener's catch-up after a reconnect.
      `CREATE TABLE ${t.eventCounters} (
        account_id text PRIMARY KEY,
        last bigint NOT NULL,
        last_xid xid8 NOT NULL
      )`,
      `CREATE TABLE ${t.events} (
        account_id text NOT NULL,
        position bigint NOT NULL,
        id text NOT NULL,
        subject text NOT NULL,
        type text NOT NULL,
        expires_at bigint NOT NULL,
        envelope json NOT NULL,
        PRIMARY KEY (account_id, position)
      )`,
      `CREATE INDEX events_expires_at ON ${t.events} (expires_at)`,
      `CREATE TABLE ${t.streamLeases} (
        account_id text NOT NULL,
        lease_id text NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (account_id, lease_id)
      )`,
      `CREATE INDEX stream_leases_expires_at ON ${t.streamLeases} (expires_at)`,
      `CREATE TABLE ${t.tokenBuckets} (
        key text PRIMARY KEY,
        tokens bigint NOT NULL,
        refilled_at bigint NOT NULL,
        capacity bigint NOT NULL,
        refill_ms bigint NOT NULL
      )`,
      `CREATE TABLE ${t.pressKeys} (
        key text PRIMARY KEY,
        event_id text NOT NULL,
        expires_at bigint NOT NULL
      )`,
      `CREATE INDEX press_keys_expires_at ON ${t.pressKeys} (expires_at)`,
      `CREATE TABLE ${t.pressNotes} (
        widget_key text NOT NULL,
        device_id text NOT NULL,
        until bigint NOT NULL,
        PRIMARY KEY (widget_key, device_id)
      )`,
      `CREATE INDEX press_notes_until ON ${t.pressNotes} (until)`,
      `CREATE TABLE ${t.throttleWindows} (
        key text PRIMARY KEY,
        ends_at bigint NOT NULL,
        window_ms bigint NOT NULL,
        trailing_pending boolean NOT NULL,
        last_claim text NOT NULL
      )`,
      `CREATE TABLE ${t.webhookClaims} (
        event_id text NOT NULL,
        entry_key text NOT NULL,
        instance_id text NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (event_id, entry_key)
      )`,
      `CREATE INDEX webhook_claims_expires_at ON ${t.webhookClaims} (expires_at)`,
    ],
  },
  {
    version: 2,
    name: 'apns registrations',
    // Tokens live and die with their device (and an update token with its activity): the
    // cascades remove them; `upsertDevice` removes them when the device's token changes.
    statements: (t) => [
      `CREATE TABLE ${t.apnsRegistrations} (
        device_id text PRIMARY KEY REFERENCES ${t.devices} (id) ON DELETE CASCADE,
        environment text NOT NULL,
        push_to_start text,
        widgets text
      )`,
      `CREATE TABLE ${t.apnsActivityTokens} (
        device_id text NOT NULL REFERENCES ${t.devices} (id) ON DELETE CASCADE,
        account_id text NOT NULL,
        slug text NOT NULL,
        token text NOT NULL,
        PRIMARY KEY (device_id, account_id, slug),
        FOREIGN KEY (account_id, slug) REFERENCES ${t.activities} (account_id, slug) ON DELETE CASCADE
      )`,
      `CREATE INDEX apns_activity_tokens_activity ON ${t.apnsActivityTokens} (account_id, slug)`,
    ],
  },
  {
    version: 3,
    name: 'device stream leases, shares with other accounts only',
    statements: (t) => [
      // The slots of `GET /device/stream`, like `stream_leases` per device. No foreign key:
      // the device's removal or new credential deletes them (as `deleteAccount` does those
      // of an account), and an acquire racing a removal must not fail on a constraint.
      `CREATE TABLE ${t.deviceStreamLeases} (
        device_id text NOT NULL,
        lease_id text NOT NULL,
        expires_at bigint NOT NULL,
        PRIMARY KEY (device_id, lease_id)
      )`,
      `CREATE INDEX device_stream_leases_expires_at ON ${t.deviceStreamLeases} (expires_at)`,
      // A widget is no longer shared with a device of its own account (it was listed and
      // pushed twice there): the shares made before are dropped.
      `DELETE FROM ${t.widgetShares} s USING ${t.devices} d WHERE d.id = s.device_id AND d.account_id = s.account_id`,
    ],
  },
  {
    version: 4,
    name: 'fcm tokens',
    // One FCM registration token per device, gone with the device (the cascade) or with its
    // credential (`upsertDevice` deletes it when the token hash or account changes).
    statements: (t) => [
      `CREATE TABLE ${t.fcmTokens} (
        device_id text PRIMARY KEY REFERENCES ${t.devices} (id) ON DELETE CASCADE,
        token text NOT NULL
      )`,
    ],
  },
  {
    version: 5,
    name: 'delivery jobs and dead letters',
    statements: (t) => [
      // The throttle now lives in the jobs: a widget's job is due at the end of its window.
      `DROP TABLE ${t.throttleWindows}`,
      `CREATE SEQUENCE ${t.deliveryGenerations} AS bigint`,
      // One row per activity or widget, however many devices its job reaches: `cursor` is
      // the last device id done. A done job stays as a row with `pending` false until its
      // widget's throttle window (`window_until`, set by each claim) is over, so an update
      // always finds the window on the row it replaces, locked (no second table to read
      // in another snapshot). The generated slugs tie a row to its activity or widget: the
      // job goes with it (ON DELETE CASCADE; a null slug is not checked).
      `CREATE TABLE ${t.deliveryJobs} (
        account_id text NOT NULL,
        kind text NOT NULL CONSTRAINT delivery_jobs_kind CHECK (kind IN ('activity', 'widget')),
        slug text NOT NULL,
        generation bigint NOT NULL,
        phase text NOT NULL,
        start_above text COLLATE "C",
        cursor text COLLATE "C" NOT NULL,
        due_at bigint NOT NULL,
        created_at bigint NOT NULL,
        leased_by text,
        lease_until bigint NOT NULL,
        resumed integer NOT NULL,
        pending boolean NOT NULL,
        window_until bigint NOT NULL,
        activity_slug text GENERATED ALWAYS AS (CASE WHEN kind = 'activity' THEN slug END) STORED,
        widget_slug text GENERATED ALWAYS AS (CASE WHEN kind = 'widget' THEN slug END) STORED,
        PRIMARY KEY (account_id, kind, slug),
        FOREIGN KEY (account_id, activity_slug) REFERENCES ${t.activities} (account_id, slug) ON DELETE CASCADE,
        FOREIGN KEY (account_id, widget_slug) REFERENCES ${t.widgets} (account_id, slug) ON DELETE CASCADE
      )`,
      // Claims, listings and stats read the pending rows, few however many resources there
      // are, and sort them. No index names a column a newer update changes (due_at,
      // created_at, generation...): superseding a pending job is then a HOT update of its
      // row, with no index entry to add, on the hottest statement (every PATCH).
      `CREATE INDEX delivery_jobs_pending ON ${t.deliveryJobs} (account_id) WHERE pending`,
      // Kept for their 7 days whatever becomes of the resource, the device or the account.
      `CREATE TABLE ${t.deadLetters} (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        account_id text NOT NULL,
        kind text NOT NULL,
        slug text NOT NULL,
        device_id text NOT NULL,
        transport text NOT NULL,
        reason text NOT NULL,
        at bigint NOT NULL
      )`,
      `CREATE INDEX dead_letters_at ON ${t.deadLetters} (at, id)`,
      `CREATE INDEX dead_letters_account_at ON ${t.deadLetters} (account_id, at, id)`,
    ],
  },
  {
    version: 6,
    name: 'broadcast channels',
    statements: (t) => [
      // docs/contract/broadcast-channels.md#broadcast-activity-delivery: existing activities
      // keep per-token delivery. The channel ids are read with the row (every update returns
      // them); `activity_channels` below keeps each id unique.
      `ALTER TABLE ${t.activities}
         ADD COLUMN delivery text NOT NULL DEFAULT 'tokens' CONSTRAINT activities_delivery CHECK (delivery IN ('tokens', 'broadcast')),
         ADD COLUMN frequent_updates boolean NOT NULL DEFAULT false,
         ADD COLUMN channel_production text,
         ADD COLUMN channel_sandbox text`,
      // One row per channel id an activity holds: the primary key makes an id belong to one
      // activity and environment (docs/contract/broadcast-channels.md#broadcast-channel-on-start),
      // and the rows go with their activity (ON DELETE CASCADE), as its columns do. A
      // replaced id is claimed here before the old one is released (no unique key per
      // environment, which that order would break): the activity's column holds one.
      `CREATE TABLE ${t.activityChannels} (
        channel_id text PRIMARY KEY,
        account_id text NOT NULL,
        slug text NOT NULL,
        environment text NOT NULL CONSTRAINT activity_channels_environment CHECK (environment IN ('production', 'sandbox')),
        FOREIGN KEY (account_id, slug) REFERENCES ${t.activities} (account_id, slug) ON DELETE CASCADE
      )`,
      `CREATE INDEX activity_channels_activity ON ${t.activityChannels} (account_id, slug)`,
      // docs/contract/broadcast-channels.md#broadcast-device-flag: existing registrations do not follow channels.
      `ALTER TABLE ${t.apnsRegistrations} ADD COLUMN channels boolean NOT NULL DEFAULT false`,
      // The followers of a broadcast, listed on every update, are found without reading the
      // registrations of devices that follow nothing.
      `CREATE INDEX apns_registrations_channels ON ${t.apnsRegistrations} (device_id) WHERE channels`,
    ],
  },
];

/** The newest migration version this package knows. */
export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

export interface MigrateOptions {
  /** Schema holding the tables (created when missing). Default `tilecast`. */
  schema?: string;
}

export interface MigrateResult {
  /** Versions applied by this call (empty when the schema was up to date). */
  applied: number[];
  /** The schema's version after the call. */
  version: number;
}

/**
 * Creates or upgrades the store's tables. Idempotent and versioned (the `migrations` table
 * of the schema lists what ran); safe when several instances call it at once: a
 * transaction-scoped advisory lock (keyed by the schema name) lets one of them run the
 * pending migrations while the others wait, then find nothing left to do. Everything
 * pending runs in one transaction, so a failure leaves the schema as it was.
 *
 * The host runs it explicitly (at start, or from a deploy step); the store never migrates
 * by itself. It has no deadline: a pool's `statement_timeout` does not apply to it.
 */
export async function migrate(pool: PoolLike, options: MigrateOptions = {}): Promise<MigrateResult> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const t = tables(schema);
  return transaction(pool, async (client) => {
    // A pool with the store's statement_timeout (its own, or the reference server's) must
    // not cut a long migration, or the wait for another instance's.
    await client.query('SET LOCAL statement_timeout = 0');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`@tilecast/storage-postgres:migrate:${schema}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${t.schema}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS ${t.migrations} (
        version integer PRIMARY KEY,
        name text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`,
    );
    const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${t.migrations}`);
    const done = new Set(rows.map((row) => Number(row.version)));
    const applied: number[] = [];
    for (const migration of MIGRATIONS) {
      if (done.has(migration.version)) continue;
      for (const statement of migration.statements(t)) await client.query(statement);
      await client.query(`INSERT INTO ${t.migrations} (version, name) VALUES ($1, $2)`, [migration.version, migration.name]);
      applied.push(migration.version);
    }
    const version = Math.max(0, ...done, ...applied);
    return { applied, version };
  });
}

/**
 * The schema's migration version: the highest one `migrate` recorded, 0 when the schema or
 * its `migrations` table does not exist. Reads only: a tool that must not create tables
 * (the `tilecast` CLI) compares it with `LATEST_VERSION` and asks for `migrate` first.
 */
export async function readSchemaVersion(pool: Queryable, options: MigrateOptions = {}): Promise<number> {
  const schema = options.schema ?? DEFAULT_SCHEMA;
  const t = tables(schema);
  const found = await pool.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [t.migrations]);
  if (!found.rows[0]?.present) return 0;
  const { rows } = await pool.query<{ version: number | null }>(`SELECT max(version) AS version FROM ${t.migrations}`);
  return Number(rows[0]?.version ?? 0);
}
