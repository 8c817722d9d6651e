import { DEFAULT_SCHEMA, type Deadlines } from '@tilecast/storage-postgres';
import { usageError } from './errors.js';

/** Where and how the CLI reaches the deployment's database: the same variables as the reference server. */
export interface DatabaseSettings {
  url: string;
  /** `host:port/database`, for messages (never the user or password). */
  where: string;
  schema: string;
  deadlines: Deadlines;
}

const DEADLINE_VARIABLES = {
  connectTimeoutMs: 'TILECAST_PG_CONNECT_TIMEOUT_MS',
  acquireTimeoutMs: 'TILECAST_PG_ACQUIRE_TIMEOUT_MS',
  statementTimeoutMs: 'TILECAST_PG_STATEMENT_TIMEOUT_MS',
} as const;

const DEFAULT_DEADLINE_MS = 5_000;

/**
 * `DATABASE_URL`, the schema (`--schema`, else `TILECAST_DATABASE_SCHEMA`, else `tilecast`)
 * and the `TILECAST_PG_*_TIMEOUT_MS` deadlines. Anything missing or malformed is a usage
 * error naming the variable; the URL itself is never repeated (it may hold a password).
 */
export function readDatabaseSettings(env: NodeJS.ProcessEnv, schemaOption: string | undefined): DatabaseSettings {
  const url = env.DATABASE_URL ?? '';
  if (url === '') throw usageError('DATABASE_URL is not set: set it to the PostgreSQL URL of the deployment, e.g. postgres://user:password@host:5432/database');
  return {
    url,
    where: describeUrl(url),
    schema: schemaOption ?? (env.TILECAST_DATABASE_SCHEMA || DEFAULT_SCHEMA),
    deadlines: {
      connectTimeoutMs: readDeadline(env, DEADLINE_VARIABLES.connectTimeoutMs),
      acquireTimeoutMs: readDeadline(env, DEADLINE_VARIABLES.acquireTimeoutMs),
      statementTimeoutMs: readDeadline(env, DEADLINE_VARIABLES.statementTimeoutMs),
    },
  };
}

/** Checks that the URL is a PostgreSQL URL (before the driver, which would take `not-a-url` for a host name) and names its server. */
function describeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw usageError('DATABASE_URL is not a URL: expected postgres://user:password@host:port/database');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') {
    throw usageError(`DATABASE_URL is not a PostgreSQL URL: its scheme is "${parsed.protocol}", expected postgres:// or postgresql://`);
  }
  const host = parsed.host || 'localhost';
  return `${host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

function readDeadline(env: NodeJS.ProcessEnv, name: string): number {
  const value = env[name];
  if (value === undefined || value === '') return DEFAULT_DEADLINE_MS;
  const ms = Number(value);
  if (!Number.isSafeInteger(ms) || ms <= 0) throw usageError(`${name} must be a positive integer (milliseconds), got "${value}"`);
  return ms;
}
