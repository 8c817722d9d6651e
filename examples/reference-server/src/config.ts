import { readMetricsConfig, type MetricsConfig } from './observability-config.js';

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
  /** APNs delivery (real-devices §3): on when the four `TILECAST_APNS_*` key settings are set, else null. */
  apns: ApnsConfig | null;
  /** `GET /metrics`: `TILECAST_METRICS`, `TILECAST_METRICS_PORT` (observability-config.ts). */
  metrics: MetricsConfig;
}

export interface ApnsConfig {
  /** `TILECAST_APNS_KEY_FILE`: path of the `.p8` signing key. */
  keyFile: string;
  keyId: string;
  teamId: string;
  bundleId: string;
  /** `TILECAST_APNS_ORIGIN`: replaces Apple's hosts (tests and the demo only), or null. */
  origin: string | null;
  /** `TILECAST_APNS_CA_FILE`: PEM of the CAs to trust for `origin` instead of Node's, or null. */
  caFile: string | null;
  /** `TILECAST_APNS_ATTRIBUTES_TYPE`: the start pushes' `attributes-type`. */
  attributesType: string;
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
    apns: readApns(env),
    metrics: readMetricsConfig(env),
  };
}

const APNS_REQUIRED = ['TILECAST_APNS_KEY_FILE', 'TILECAST_APNS_KEY_ID', 'TILECAST_APNS_TEAM_ID', 'TILECAST_APNS_BUNDLE_ID'] as const;
const APNS_OPTIONAL = ['TILECAST_APNS_ORIGIN', 'TILECAST_APNS_CA_FILE', 'TILECAST_APNS_ATTRIBUTES_TYPE'] as const;

/** All four key settings turn APNs on; some of them, or only optional ones, is a mistake worth stopping for. */
function readApns(env: NodeJS.ProcessEnv): ApnsConfig | null {
  const set = (name: string) => (env[name] ?? '') !== '';
  const missing = APNS_REQUIRED.filter((name) => !set(name));
  if (missing.length === APNS_REQUIRED.length) {
    const stray = APNS_OPTIONAL.filter(set);
    if (stray.length === 0) return null;
    throw new Error(`${stray.join(', ')} set but APNs is off: set ${APNS_REQUIRED.join(', ')} to turn it on`);
  }
  if (missing.length > 0) {
    throw new Error(`APNs settings incomplete: ${missing.join(', ')} missing (set all of ${APNS_REQUIRED.join(', ')}, or none)`);
  }
  const origin = env.TILECAST_APNS_ORIGIN || null;
  if (origin !== null && !/^https:\/\/[^/?#]+\/?$/.test(origin)) {
    throw new Error(`TILECAST_APNS_ORIGIN must be an https origin such as https://127.0.0.1:8443, got "${origin}"`);
  }
  const caFile = env.TILECAST_APNS_CA_FILE || null;
  // The file replaces Node's CAs: with Apple's hosts every push would fail.
  if (caFile !== null && origin === null)
    throw new Error("TILECAST_APNS_CA_FILE needs TILECAST_APNS_ORIGIN (it replaces the CAs Apple's hosts are checked against)");
  return {
    keyFile: env.TILECAST_APNS_KEY_FILE!,
    keyId: env.TILECAST_APNS_KEY_ID!,
    teamId: env.TILECAST_APNS_TEAM_ID!,
    bundleId: env.TILECAST_APNS_BUNDLE_ID!,
    origin: origin?.replace(/\/$/, '') ?? null,
    caFile,
    attributesType: env.TILECAST_APNS_ATTRIBUTES_TYPE || 'TilecastActivityAttributes',
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
