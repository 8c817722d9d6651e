/** The reference deployment's settings, read from the environment (reference-deployment §7). */
export interface ServerConfig {
  port: number;
  host: string;
  /** Path of a seed file to load at start, or null for the demo account. */
  seedPath: string | null;
  /** `TILECAST_DEMO_ROTATE=1`: issue new tokens for an existing demo account and phone at start. */
  demoRotate: boolean;
  databaseUrl: string | null;
  /** PostgreSQL schema of Tilecast's tables (`TILECAST_DATABASE_SCHEMA`, default `tilecast`). */
  databaseSchema: string;
  /**
   * PostgreSQL deadlines in milliseconds (`TILECAST_PG_CONNECT_TIMEOUT_MS`,
   * `TILECAST_PG_ACQUIRE_TIMEOUT_MS`, `TILECAST_PG_STATEMENT_TIMEOUT_MS`; 5000 each).
   */
  databaseDeadlines: { connectTimeoutMs: number; acquireTimeoutMs: number; statementTimeoutMs: number };
  /** Heartbeat and lifetime of `GET /events` and `GET /device/stream`. */
  sse: { pingMs: number; lifetimeMs: number };
  /** `TILECAST_WEBHOOK_ALLOW_PRIVATE=1`: tests only, webhooks may target loopback and private addresses. */
  webhookAllowPrivate: boolean;
  /**
   * `TILECAST_SHUTDOWN_GRACE_MS` (default 10000): on SIGTERM or SIGINT, how long requests in
   * flight, device pushes and webhook deliveries get to finish before they are cut.
   */
  shutdownGraceMs: number;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  return {
    port: readPort(env.PORT),
    host: env.HOST || '127.0.0.1',
    seedPath: env.TILECAST_SEED || null,
    demoRotate: env.TILECAST_DEMO_ROTATE === '1',
    databaseUrl: env.DATABASE_URL || null,
    databaseSchema: env.TILECAST_DATABASE_SCHEMA || 'tilecast',
    databaseDeadlines: {
      connectTimeoutMs: readPositiveInteger('TILECAST_PG_CONNECT_TIMEOUT_MS', env.TILECAST_PG_CONNECT_TIMEOUT_MS, 5_000),
      acquireTimeoutMs: readPositiveInteger('TILECAST_PG_ACQUIRE_TIMEOUT_MS', env.TILECAST_PG_ACQUIRE_TIMEOUT_MS, 5_000),
      statementTimeoutMs: readPositiveInteger('TILECAST_PG_STATEMENT_TIMEOUT_MS', env.TILECAST_PG_STATEMENT_TIMEOUT_MS, 5_000),
    },
    sse: {
      pingMs: readPositiveInteger('TILECAST_SSE_PING_MS', env.TILECAST_SSE_PING_MS, 20_000),
      lifetimeMs: readPositiveInteger('TILECAST_SSE_LIFETIME_MS', env.TILECAST_SSE_LIFETIME_MS, 900_000),
    },
    webhookAllowPrivate: env.TILECAST_WEBHOOK_ALLOW_PRIVATE === '1',
    shutdownGraceMs: readPositiveInteger('TILECAST_SHUTDOWN_GRACE_MS', env.TILECAST_SHUTDOWN_GRACE_MS, 10_000),
  };
}

function readPort(value: string | undefined): number {
  if (value === undefined || value === '') return 8080;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer 0-65535, got "${value}"`);
  return port;
}

function readPositiveInteger(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isSafeInteger(number) || number <= 0) throw new Error(`${name} must be a positive integer (milliseconds), got "${value}"`);
  return number;
}
