import { SettingProblem } from './setting-parsers.js';
import { SETTINGS, type SettingName, type SettingValues } from './settings.js';
import { type LogLevel, type MetricsConfig, metricsConfig, metricsProblems } from './observability-config.js';

/** The reference deployment's settings, read from the environment (docs/contract/deployment.md). */
export interface ServerConfig {
  port: number;
  host: string;
  /** Path of a seed file to load at start, or null. */
  seedPath: string | null;
  /**
   * `TILECAST_DEMO`: create the demo account and phone (once) and hand the phone's token to
   * the simulator page. Unset: on only with the in-memory store and no seed (the quick start).
   */
  demo: boolean;
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
  /**
   * `TILECAST_REQUEST_TIMEOUT_MS`, `TILECAST_HEADERS_TIMEOUT_MS`, `TILECAST_KEEP_ALIVE_TIMEOUT_MS`:
   * the HTTP server's deadlines (`listen()` of `@tilecast/adapter-node-http`).
   */
  timeouts: { requestTimeoutMs: number; headersTimeoutMs: number; keepAliveTimeoutMs: number };
  /** Heartbeat and lifetime of `GET /events` and `GET /device/stream`. */
  sse: { pingMs: number; lifetimeMs: number };
  /** `TILECAST_WEBHOOK_ALLOW_PRIVATE=1`: tests only, webhooks may target loopback and private addresses. */
  webhookAllowPrivate: boolean;
  /**
   * `TILECAST_SHUTDOWN_GRACE_MS` (default 10000): on SIGTERM or SIGINT, how long requests in
   * flight, device pushes and webhook deliveries get to finish before they are cut.
   */
  shutdownGraceMs: number;
  /**
   * How delivery jobs are worked on (docs/contract/deployment.md#env-delivery):
   * `TILECAST_DELIVERY_LEASE_MS`, `TILECAST_DELIVERY_POLL_MS`, `TILECAST_DELIVERY_MAX_JOBS`,
   * `TILECAST_DELIVERY_LATE_AFTER_MS`; `TilecastOptions.delivery` as it is.
   */
  delivery: { leaseMs: number; pollMs: number; maxJobs: number; lateAfterMs: number };
  /** APNs delivery (docs/contract/apns.md#apns-reference-settings): on when the four `TILECAST_APNS_*` key settings are set, else null. */
  apns: ApnsConfig | null;
  /** FCM delivery (docs/contract/android-fcm.md#fcm-reference-settings): on when `TILECAST_FCM_CREDENTIALS_FILE` is set, else null. */
  fcm: FcmConfig | null;
  /** `GET /metrics`: `TILECAST_METRICS`, `TILECAST_METRICS_PORT` (observability-config.ts). */
  metrics: MetricsConfig;
  /** pino's least level logged: `LOG_LEVEL`. */
  logLevel: LogLevel;
}

export interface ApnsConfig {
  /** `TILECAST_APNS_KEY_FILE`: path of the `.p8` signing key. */
  keyFile: string;
  keyId: string;
  teamId: string;
  bundleId: string;
  /** `TILECAST_APNS_ORIGIN`: replaces Apple's hosts (tests and the demo only), or null. */
  origin: string | null;
  /**
   * `TILECAST_APNS_MANAGE_ORIGIN`: replaces Apple's channel management hosts (tests only:
   * docs/contract/broadcast-channels.md#broadcast-reference-settings), or null.
   */
  manageOrigin: string | null;
  /** `TILECAST_APNS_CA_FILE`: PEM of the CAs to trust for `origin` instead of Node's, or null. */
  caFile: string | null;
  /** `TILECAST_APNS_ATTRIBUTES_TYPE`: the start pushes' `attributes-type`. */
  attributesType: string;
}

export interface FcmConfig {
  /** `TILECAST_FCM_CREDENTIALS_FILE`: path of the service-account key file (JSON). */
  credentialsFile: string;
  /** `TILECAST_FCM_ORIGIN`: replaces FCM's send host (tests and the demo only), or null. */
  origin: string | null;
  /** `TILECAST_FCM_TOKEN_ORIGIN`: replaces the token endpoint's origin (tests and the demo only), or null. */
  tokenOrigin: string | null;
  /** `TILECAST_FCM_CA_FILE`: PEM of the CAs to trust for both origins instead of Node's, or null. */
  caFile: string | null;
}

/** The configuration is invalid: `problems` holds one line per problem, all of them at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'ConfigError';
  }
}

export interface LoadedConfig {
  /** Null when there is at least one problem. */
  config: ServerConfig | null;
  /** One line per problem: each names its variable. */
  problems: string[];
  /** One line per `TILECAST_*` variable the server does not know (likely a typo): it is ignored. */
  warnings: string[];
}

/** Reads and checks every setting of {@link SETTINGS}: every problem is reported, not only the first. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const problems: string[] = [];
  const values: Record<string, unknown> = {};
  for (const [name, setting] of Object.entries(SETTINGS)) {
    // An empty value counts as unset, as `VAR= command` and compose's `VAR:` leave it.
    const raw = env[name] || setting.default;
    if (raw === null) {
      values[name] = null;
      continue;
    }
    try {
      values[name] = setting.parse(raw, name);
    } catch (error) {
      if (!(error instanceof SettingProblem)) throw error;
      problems.push(error.message);
    }
  }
  problems.push(...apnsProblems(env), ...fcmProblems(env), ...metricsProblems(env), ...crossProblems(values as Partial<SettingValues>));
  const warnings = unknownSettings(env);
  if (problems.length > 0) return { config: null, problems, warnings };
  return { config: toServerConfig(values as SettingValues), problems, warnings };
}

/** {@link loadConfig} for callers that stop at a problem: throws a {@link ConfigError} listing them all. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const { config, problems } = loadConfig(env);
  if (config === null) throw new ConfigError(problems);
  return config;
}

function toServerConfig(values: SettingValues): ServerConfig {
  return {
    port: values.PORT,
    host: values.HOST,
    seedPath: values.TILECAST_SEED,
    demo: demoOn(values),
    demoRotate: values.TILECAST_DEMO_ROTATE,
    databaseUrl: values.DATABASE_URL,
    databaseSchema: values.TILECAST_DATABASE_SCHEMA,
    databaseDeadlines: {
      connectTimeoutMs: values.TILECAST_PG_CONNECT_TIMEOUT_MS,
      acquireTimeoutMs: values.TILECAST_PG_ACQUIRE_TIMEOUT_MS,
      statementTimeoutMs: values.TILECAST_PG_STATEMENT_TIMEOUT_MS,
    },
    timeouts: {
      requestTimeoutMs: values.TILECAST_REQUEST_TIMEOUT_MS,
      headersTimeoutMs: values.TILECAST_HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: values.TILECAST_KEEP_ALIVE_TIMEOUT_MS,
    },
    sse: { pingMs: values.TILECAST_SSE_PING_MS, lifetimeMs: values.TILECAST_SSE_LIFETIME_MS },
    webhookAllowPrivate: values.TILECAST_WEBHOOK_ALLOW_PRIVATE,
    shutdownGraceMs: values.TILECAST_SHUTDOWN_GRACE_MS,
    delivery: {
      leaseMs: values.TILECAST_DELIVERY_LEASE_MS,
      pollMs: values.TILECAST_DELIVERY_POLL_MS,
      maxJobs: values.TILECAST_DELIVERY_MAX_JOBS,
      lateAfterMs: values.TILECAST_DELIVERY_LATE_AFTER_MS,
    },
    apns: toApnsConfig(values),
    fcm: toFcmConfig(values),
    metrics: metricsConfig(values.TILECAST_METRICS, values.TILECAST_METRICS_PORT),
    logLevel: values.LOG_LEVEL,
  };
}

/** Set when the four key settings are (checked by {@link apnsProblems}), else APNs is off. */
function toApnsConfig(values: SettingValues): ApnsConfig | null {
  const { TILECAST_APNS_KEY_FILE: keyFile, TILECAST_APNS_KEY_ID: keyId, TILECAST_APNS_TEAM_ID: teamId, TILECAST_APNS_BUNDLE_ID: bundleId } = values;
  if (keyFile === null || keyId === null || teamId === null || bundleId === null) return null;
  return {
    keyFile,
    keyId,
    teamId,
    bundleId,
    origin: values.TILECAST_APNS_ORIGIN,
    manageOrigin: values.TILECAST_APNS_MANAGE_ORIGIN,
    caFile: values.TILECAST_APNS_CA_FILE,
    attributesType: values.TILECAST_APNS_ATTRIBUTES_TYPE,
  };
}

/** Set when the service-account key file is, else FCM is off. */
function toFcmConfig(values: SettingValues): FcmConfig | null {
  const credentialsFile = values.TILECAST_FCM_CREDENTIALS_FILE;
  if (credentialsFile === null) return null;
  return { credentialsFile, origin: values.TILECAST_FCM_ORIGIN, tokenOrigin: values.TILECAST_FCM_TOKEN_ORIGIN, caFile: values.TILECAST_FCM_CA_FILE };
}

/**
 * Settings that are valid alone but not together (each checked only when its values were
 * read): Node refuses a header deadline past the request deadline, rotating the demo
 * tokens means nothing when the demo account is off, and a delivery lease that a renewal
 * statement may outlast would pass to another instance while its holder still works.
 */
function crossProblems(values: Partial<SettingValues>): string[] {
  const problems: string[] = [];
  const { TILECAST_REQUEST_TIMEOUT_MS: request, TILECAST_HEADERS_TIMEOUT_MS: headers } = values;
  if (request !== undefined && headers !== undefined && headers > request) {
    problems.push(`TILECAST_HEADERS_TIMEOUT_MS (${headers}) must not exceed TILECAST_REQUEST_TIMEOUT_MS (${request})`);
  }
  const { TILECAST_DELIVERY_LEASE_MS: lease, TILECAST_PG_STATEMENT_TIMEOUT_MS: statement } = values;
  // The lease is renewed a third of the way through it, by a statement that may take its whole deadline.
  if (values.DATABASE_URL != null && lease !== undefined && statement !== undefined && lease < 2 * statement) {
    problems.push(
      `TILECAST_DELIVERY_LEASE_MS (${lease}) must be at least twice TILECAST_PG_STATEMENT_TIMEOUT_MS (${statement}): a lease is renewed by a statement that may take that long`,
    );
  }
  if (values.TILECAST_DEMO_ROTATE === true && !demoOn(values)) {
    problems.push('TILECAST_DEMO_ROTATE=1 needs the demo account: set TILECAST_DEMO=1 (unset, it is off with DATABASE_URL or TILECAST_SEED)');
  }
  return problems;
}

/**
 * `TILECAST_DEMO`, or unset: on only for the quick start (in memory, no seed). A deployment
 * with a database never gets an account it did not ask for.
 */
function demoOn(values: Partial<SettingValues>): boolean {
  return values.TILECAST_DEMO ?? (values.DATABASE_URL == null && values.TILECAST_SEED == null);
}

const APNS_REQUIRED = ['TILECAST_APNS_KEY_FILE', 'TILECAST_APNS_KEY_ID', 'TILECAST_APNS_TEAM_ID', 'TILECAST_APNS_BUNDLE_ID'] as const;
const APNS_OPTIONAL = ['TILECAST_APNS_ORIGIN', 'TILECAST_APNS_MANAGE_ORIGIN', 'TILECAST_APNS_CA_FILE', 'TILECAST_APNS_ATTRIBUTES_TYPE'] as const;

/** All four key settings turn APNs on; some of them, or only optional ones, is a mistake worth stopping for. */
function apnsProblems(env: NodeJS.ProcessEnv): string[] {
  const set = (name: SettingName) => (env[name] ?? '') !== '';
  const missing = APNS_REQUIRED.filter((name) => !set(name));
  if (missing.length === APNS_REQUIRED.length) {
    const stray = APNS_OPTIONAL.filter(set);
    return stray.length === 0 ? [] : [`${stray.join(', ')} set but APNs is off: set ${APNS_REQUIRED.join(', ')} to turn it on`];
  }
  const problems: string[] = [];
  if (missing.length > 0) {
    problems.push(`APNs settings incomplete: ${missing.join(', ')} missing (set all of ${APNS_REQUIRED.join(', ')}, or none)`);
  }
  // The file replaces Node's CAs: with Apple's hosts every push would fail.
  if (set('TILECAST_APNS_CA_FILE') && !set('TILECAST_APNS_ORIGIN')) {
    problems.push("TILECAST_APNS_CA_FILE needs TILECAST_APNS_ORIGIN (it replaces the CAs Apple's hosts are checked against)");
  }
  return problems;
}

const FCM_OPTIONAL = ['TILECAST_FCM_ORIGIN', 'TILECAST_FCM_TOKEN_ORIGIN', 'TILECAST_FCM_CA_FILE'] as const;

/** The key file turns FCM on; an optional setting without it is a mistake worth stopping for. */
function fcmProblems(env: NodeJS.ProcessEnv): string[] {
  const set = (name: SettingName) => (env[name] ?? '') !== '';
  if (!set('TILECAST_FCM_CREDENTIALS_FILE')) {
    const stray = FCM_OPTIONAL.filter(set);
    return stray.length === 0 ? [] : [`${stray.join(', ')} set but FCM is off: set TILECAST_FCM_CREDENTIALS_FILE to turn it on`];
  }
  // The file replaces Node's CAs for both origins: with one of Google's hosts left, every push would fail.
  if (set('TILECAST_FCM_CA_FILE') && !(set('TILECAST_FCM_ORIGIN') && set('TILECAST_FCM_TOKEN_ORIGIN'))) {
    return ["TILECAST_FCM_CA_FILE needs TILECAST_FCM_ORIGIN and TILECAST_FCM_TOKEN_ORIGIN (it replaces the CAs Google's hosts are checked against)"];
  }
  return [];
}

/**
 * Read by the repository's other programs, not by the server, so a shell that sets them
 * for those is not warned about: the apns-demo's and the smart-home example's server URL
 * and token, the test suite's tool locations, the benchmarks' CPU pinning.
 */
const READ_ELSEWHERE = new Set([
  'TILECAST_URL',
  'TILECAST_TOKEN',
  'TILECAST_TEST_POSTGRES',
  'TILECAST_TEST_REPORT',
  'TILECAST_CHROMIUM',
  'TILECAST_HAPROXY',
  'TILECAST_BENCH_PINNED',
]);

/** A `TILECAST_*` variable the server does not read is most likely a typo of one it does. */
function unknownSettings(env: NodeJS.ProcessEnv): string[] {
  const known = Object.keys(SETTINGS);
  return Object.keys(env)
    .filter((name) => name.startsWith('TILECAST_') && !Object.hasOwn(SETTINGS, name) && !READ_ELSEWHERE.has(name))
    .sort()
    .map((name) => {
      const nearest = closest(name, known);
      return `${name} is not a setting of the reference server and is ignored${nearest === null ? '' : ` (did you mean ${nearest}?)`}`;
    });
}

/** The known name within a few edits of `name`, if any. */
function closest(name: string, known: string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance <= Math.max(2, Math.floor(candidate.length / 5)) && (best === null || distance < best.distance)) best = { name: candidate, distance };
  }
  return best?.name ?? null;
}

/** Levenshtein distance, one row at a time. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
