import { DEFAULT_TIMEOUTS } from '@tilecast/adapter-node-http';
import { LOG_LEVELS } from './observability-config.js';
import { flag, host, httpsOrigin, integer, MAX_TIMER_MS, milliseconds, oneOf, type Parse, postgresUrl, readableFile, text } from './setting-parsers.js';

/**
 * One environment variable of the server. `default` is the text used when the variable is
 * unset or empty (it goes through `parse` like a value that was set), or null when unset
 * means "off". `description` is Markdown: `--help` prints it and the README's table must
 * repeat it word for word (a test compares them).
 */
export interface Setting<T, D extends string | null = string | null> {
  parse: Parse<T>;
  default: D;
  description: string;
}

function setting<T>(parse: Parse<T>, fallback: string, description: string): Setting<T, string>;
function setting<T>(parse: Parse<T>, fallback: null, description: string): Setting<T, null>;
function setting<T>(parse: Parse<T>, fallback: string | null, description: string): Setting<T> {
  return { parse, default: fallback, description };
}

const APPLE_ID = /^[A-Z0-9]{10}$/;

/**
 * Every environment variable the reference server reads, in the order `--help` and the
 * README list them. Adding one is one line here; then read it in `readConfig` as
 * `values.NAME` and add its row to the README's table (test/configuration.test.ts prints
 * the rows it expects).
 */
export const SETTINGS = {
  PORT: setting(integer(0, 65535), '8080', 'TCP port to listen on; `0` picks a free port'),
  HOST: setting(host(), '127.0.0.1', 'address to listen on; `0.0.0.0` (or `::`) for every interface, as in a container'),
  DATABASE_URL: setting(
    postgresUrl(),
    null,
    'PostgreSQL storage, `postgres://user:password@host:5432/database`, shared by every instance; migrations applied at start; unset: in memory, lost on exit',
  ),
  TILECAST_DATABASE_SCHEMA: setting(
    // The rule of @tilecast/storage-postgres's schema names, checked here so it is reported with the others.
    text(/^[A-Za-z_][A-Za-z0-9_]{0,47}$/, 'letters, digits and _ (at most 48, not starting with a digit)'),
    'tilecast',
    "the PostgreSQL schema of Tilecast's tables",
  ),
  TILECAST_PG_CONNECT_TIMEOUT_MS: setting(milliseconds(), '5000', 'deadline for opening a PostgreSQL connection'),
  TILECAST_PG_ACQUIRE_TIMEOUT_MS: setting(milliseconds(), '5000', 'deadline for getting a pooled connection (waiting included)'),
  TILECAST_PG_STATEMENT_TIMEOUT_MS: setting(milliseconds(), '5000', 'deadline for each statement (also sent to the server as `statement_timeout`)'),
  TILECAST_SEED: setting(readableFile(), null, 'a seed file to load at start (creates only what is missing, see "Seed file")'),
  TILECAST_DEMO: setting(
    flag(),
    null,
    "`1`: create the demo account `demo` and its phone `demo-phone` (once) and hand the phone's token to the simulator page; `0`: neither; unset: on only with the in-memory store and no seed file (the quick start). Tokens are printed only on a terminal",
  ),
  TILECAST_DEMO_ROTATE: setting(flag(), '0', '`1`: with the demo account on, issue new tokens for an existing demo account and phone at start'),
  TILECAST_REQUEST_TIMEOUT_MS: setting(
    milliseconds(),
    String(DEFAULT_TIMEOUTS.requestTimeoutMs),
    'how long a client gets to send a whole request, headers and body; past it the request is answered `408` and its connection closed (event streams are not cut by it)',
  ),
  TILECAST_HEADERS_TIMEOUT_MS: setting(
    milliseconds(),
    String(DEFAULT_TIMEOUTS.headersTimeoutMs),
    'how long a client gets to send the request line and headers (at most `TILECAST_REQUEST_TIMEOUT_MS`), answered the same way',
  ),
  TILECAST_KEEP_ALIVE_TIMEOUT_MS: setting(
    milliseconds(),
    String(DEFAULT_TIMEOUTS.keepAliveTimeoutMs),
    "how long an idle kept-alive connection stays open between requests; above the load balancer's idle timeout if it keeps connections to the server open",
  ),
  TILECAST_SSE_PING_MS: setting(milliseconds(), '20000', "heartbeat of `/events` and `/device/stream`; keep it below the load balancer's read timeout"),
  TILECAST_SSE_LIFETIME_MS: setting(milliseconds(), '900000', 'the server closes streams after this long (clients reconnect)'),
  TILECAST_WEBHOOK_ALLOW_PRIVATE: setting(
    flag(),
    '0',
    "`1`: tests only, webhooks may target loopback/private addresses (still `https://`, port 443); a warning is logged. Trust a test receiver's CA with `NODE_EXTRA_CA_CERTS`",
  ),
  TILECAST_SHUTDOWN_GRACE_MS: setting(
    milliseconds(),
    '10000',
    'on SIGTERM/SIGINT, how long requests in flight, device pushes and webhook deliveries get before they are cut (with PostgreSQL, unfinished delivery jobs are handed back first)',
  ),
  TILECAST_DELIVERY_LEASE_MS: setting(
    integer(1_000, MAX_TIMER_MS),
    '30000',
    'how long an instance holds a delivery job (the pushes of one update) without renewing it, renewed every third of it; when its holder dies, another instance resumes the job after this long',
  ),
  TILECAST_DELIVERY_POLL_MS: setting(
    milliseconds(),
    '2000',
    'how often each instance looks for delivery jobs nobody works on: a lease that lapsed, a widget push due at the end of its throttle window',
  ),
  TILECAST_DELIVERY_MAX_JOBS: setting(integer(1, 1000), '8', 'delivery jobs one instance works on at once, at most'),
  TILECAST_DELIVERY_LATE_AFTER_MS: setting(
    milliseconds(),
    '60000',
    "a pending delivery job older than this is named in `GET /readyz`'s `detail`; readiness stays `200`",
  ),
  TILECAST_APNS_KEY_FILE: setting(readableFile(), null, 'APNs: path of the `.p8` signing key (an EC P-256 key, checked at start)'),
  TILECAST_APNS_KEY_ID: setting(text(APPLE_ID, 'the 10-character key id Apple shows (A-Z, 0-9)'), null, "APNs: the key's id (the JWT's `kid`)"),
  TILECAST_APNS_TEAM_ID: setting(
    text(APPLE_ID, 'the 10-character team id Apple shows (A-Z, 0-9)'),
    null,
    "APNs: the Apple Developer team id (the JWT's `iss`)",
  ),
  TILECAST_APNS_BUNDLE_ID: setting(
    text(/^[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*$/, 'a bundle id such as com.example.app'),
    null,
    "APNs: the app's bundle id (topics `<bundle id>.push-type.liveactivity` and `.push-type.widgets`)",
  ),
  TILECAST_APNS_ATTRIBUTES_TYPE: setting(
    text(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a Swift type name'),
    'TilecastActivityAttributes',
    "APNs: the `attributes-type` of Live Activity start pushes: your app's `ActivityAttributes` type",
  ),
  TILECAST_APNS_ORIGIN: setting(
    httpsOrigin(),
    null,
    "APNs, tests and demos only: an `https://` origin that replaces Apple's hosts (`api.push.apple.com`, `api.sandbox.push.apple.com`); a warning is logged",
  ),
  TILECAST_APNS_MANAGE_ORIGIN: setting(
    httpsOrigin(),
    null,
    'APNs, tests only: an `https://` origin that replaces the broadcast channel management hosts (`api-manage-broadcast.push.apple.com:2196`, `api-manage-broadcast.sandbox.push.apple.com:2195`); a warning is logged. Unset, management goes to `TILECAST_APNS_ORIGIN` when that is set. Broadcasts go to the push host',
  ),
  TILECAST_APNS_CA_FILE: setting(readableFile(), null, "APNs: PEM file of the CAs to trust for `TILECAST_APNS_ORIGIN` (only with it) instead of Node's"),
  TILECAST_FCM_CREDENTIALS_FILE: setting(
    readableFile(),
    null,
    "FCM (Android): path of the Firebase project's service-account key file (JSON with project_id, client_email and an RSA private_key, checked at start); turns FCM delivery on",
  ),
  TILECAST_FCM_ORIGIN: setting(
    httpsOrigin(),
    null,
    "FCM, tests and demos only: an `https://` origin that replaces FCM's send host (`fcm.googleapis.com`); a warning is logged",
  ),
  TILECAST_FCM_TOKEN_ORIGIN: setting(
    httpsOrigin(),
    null,
    "FCM, tests and demos only: an `https://` origin that replaces Google's token endpoint's (`oauth2.googleapis.com`; the path stays `/token`); a warning is logged",
  ),
  TILECAST_FCM_CA_FILE: setting(
    readableFile(),
    null,
    "FCM: PEM file of the CAs to trust for `TILECAST_FCM_ORIGIN` and `TILECAST_FCM_TOKEN_ORIGIN` (only with both) instead of Node's",
  ),
  TILECAST_METRICS: setting(flag(), '0', "`1`: serve Prometheus metrics at `GET /metrics` on the API's port"),
  TILECAST_METRICS_PORT: setting(integer(0, 65535), null, "serve `GET /metrics` on this port instead (and not on the API's port)"),
  LOG_LEVEL: setting(
    oneOf(LOG_LEVELS),
    'info',
    'least level logged: `trace`, `debug`, `info`, `warn`, `error`, `fatal` or `silent`; JSON lines (compact text on a terminal)',
  ),
};

export type SettingName = keyof typeof SETTINGS;

/** What each setting reads as: its parser's type, or null when it has no default and is unset. */
export type SettingValues = {
  [K in SettingName]: (typeof SETTINGS)[K] extends Setting<infer T, infer D> ? (D extends null ? T | null : T) : never;
};
