import type { KeyObject } from 'node:crypto';
import { silentLogger, systemClock, type ActivityPush, type Clock, type DeviceTransport, type Logger, type WidgetPush } from '@tilecast/core';
import { Admission } from './admission.js';
import type { ApnsAnswer } from './connection.js';
import { ConnectionPool, type Connections } from './connection-pool.js';
import { ProviderToken, readSigningKey } from './provider-token.js';
import type { ApnsRequest } from './request.js';
import type { ApnsEnvironment, ApnsRegistry } from './registry.js';
import { WorkerConnectionPool } from './worker-pool.js';

export const APNS_ORIGINS: Readonly<Record<ApnsEnvironment, string>> = {
  production: 'https://api.push.apple.com',
  sandbox: 'https://api.sandbox.push.apple.com',
};

/** A push may be delivered up to an hour after it was handed over (`apns-expiration`). */
export const APNS_EXPIRATION_S = 3600;
/** `429` and `5xx` (and lost streams) are retried at most this many times. */
export const MAX_RETRIES = 2;
/** Pushes started per turn of the event loop at most (a fan-out's pacing: docs/decisions/0058-apns-pacing.md). */
const PUSHES_PER_TURN = 8;

export interface ApnsTransportOptions {
  /** The Apple Developer team id (the JWT's `iss`). */
  teamId: string;
  /** The id of the signing key (the JWT's `kid`). */
  keyId: string;
  /** The `.p8` signing key: its PEM text, or a KeyObject. */
  signingKey: string | KeyObject;
  /** The app's bundle id; topics are `<bundleId>.push-type.liveactivity|widgets`. */
  bundleId: string;
  /** Where the devices' APNs tokens are kept (the Tilecast store implements it). */
  registry: ApnsRegistry;
  /** Replaces both Apple origins (a test double on 127.0.0.1). */
  origin?: string;
  /** CAs to trust for the origin instead of Node's defaults (`NODE_EXTRA_CA_CERTS` also works). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** The Live Activity's `attributes-type` for start pushes. */
  attributesType?: string;
  /** `apns-priority` of update pushes: 10 (default) or 5 to spare the device's budget. */
  updatePriority?: 5 | 10;
  /** Streams open at once per connection (default 100); more requests wait in order. */
  maxConcurrentStreams?: number;
  /** A request without an answer after this long is cancelled and retried (default 10 s). */
  requestTimeoutMs?: number;
  /**
   * Where the HTTP/2 connections run. `'worker'` (the default): in a worker thread of their
   * own, so that the TLS, framing and garbage of a fan-out to thousands of devices never
   * hold the event loop that answers your requests; request timeouts then follow the real
   * time, not `clock`. `'main'`: on this thread, every timer on `clock` (tests).
   */
  connectionThread?: 'worker' | 'main';
  /** Base delay of the first retry (default 1 s; doubled for the second, jittered). */
  retryBaseMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Source of the retry jitter, in [0, 1). */
  random?: () => number;
}

/** Every outcome, counted since the transport was made. */
export interface ApnsCounters {
  /** Pushes APNs accepted (`200`). */
  sent: number;
  /** Attempts repeated after `429`, `5xx`, a lost stream, a timeout or a renewed provider token. */
  retried: number;
  /** Pushes given up: expired, retries used up, refused (other 4xx), or the transport closed. */
  dropped: number;
  /** Device tokens removed after `410 Unregistered`, `400 BadDeviceToken` or `400 DeviceTokenNotForTopic`. */
  tokensRemoved: number;
  /** Pushes with no token to go to (no registration, no push-to-start, update or widgets token). */
  skipped: number;
  /** Pushes not sent (or not retried) because a newer one for the same activity or widget came. */
  superseded: number;
  /** Requests cancelled for want of an answer within the request timeout. */
  timeouts: number;
  /** Connections opened to replace a lost one (GOAWAY, socket error, dead connection). */
  reconnects: number;
  /** Provider tokens signed. */
  providerTokens: number;
}

export interface ApnsTransport extends DeviceTransport {
  counters(): ApnsCounters;
  /** Streams open and requests waiting, per origin. */
  load(): Record<string, { active: number; waiting: number }>;
  /** Closes the connections and drops pushes waiting for a retry. */
  close(): Promise<void>;
}

/** A push at work: the request as sent, and what the transport keeps about it. */
interface Job extends ApnsRequest {
  deviceId: string;
  /** Pushes with the same key supersede each other (newest wins). */
  key: string;
  seq: number;
  environment: ApnsEnvironment;
  expiresAtMs: number;
  /** What the logs name the push by (never a token). */
  owner: string;
  slug: string;
  /** The activity's phase, or `widgets`. */
  what: ActivityPush['phase'] | 'widgets';
  afterSent: (() => Promise<void>) | undefined;
  /** Gives up the push's admission slot (before it waits to retry, and when it is done). */
  leave: () => void;
}

/** What the logs say about a push. */
const aboutJob = (job: Job): Record<string, unknown> =>
  job.what === 'widgets'
    ? { deviceId: job.deviceId, owner: job.owner, slug: job.slug, push: 'widgets' }
    : { deviceId: job.deviceId, owner: job.owner, slug: job.slug, phase: job.what };

const REMOVE_TOKEN: ReadonlySet<string> = new Set(['410 Unregistered', '400 BadDeviceToken', '400 DeviceTokenNotForTopic']);

export function createApnsTransport(options: ApnsTransportOptions): ApnsTransport {
  const { teamId, keyId, bundleId, registry } = options;
  for (const [name, value] of Object.entries({ teamId, keyId, bundleId })) {
    if (typeof value !== 'string' || value.trim() === '') throw new Error(`transport-apns: ${name} is required`);
  }
  const key = readSigningKey(options.signingKey);
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? silentLogger;
  const random = options.random ?? Math.random;
  const attributesType = options.attributesType ?? 'TilecastActivityAttributes';
  const updatePriority = options.updatePriority ?? 10;
  const retryBaseMs = options.retryBaseMs ?? 1000;
  const provider = new ProviderToken(key, keyId, teamId, clock);

  const counters: ApnsCounters = {
    sent: 0,
    retried: 0,
    dropped: 0,
    tokensRemoved: 0,
    skipped: 0,
    superseded: 0,
    timeouts: 0,
    reconnects: 0,
    providerTokens: 0,
  };
  const maxConcurrentStreams = options.maxConcurrentStreams ?? 100;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  const onReconnect = (origin: string) => {
    counters.reconnects += 1;
    logger.info('apns: reconnecting', { origin });
  };
  const connections: Connections =
    (options.connectionThread ?? 'worker') === 'worker'
      ? new WorkerConnectionPool({
          ca: options.ca,
          maxConcurrentStreams,
          requestTimeoutMs,
          onReconnect,
          onWorkerExit: (reason) => logger.error('apns: connection worker stopped; its requests are retried', { reason }),
        })
      : new ConnectionPool({ ca: options.ca, maxConcurrentStreams, requestTimeoutMs, clock, onReconnect });
  const originOf = (environment: ApnsEnvironment): string => options.origin ?? APNS_ORIGINS[environment];

  /** The newest push per key; an older one still waiting to retry gives way. */
  let nextSeq = 0;
  const latest = new Map<string, number>();
  /** Per device and activity: the time of the newest push handed over (never goes back). */
  const lastUpdate = new BoundedMap<string, number>(100_000);
  const sleeping = new Map<unknown, () => void>();
  let closed = false;

  const sleep = (ms: number): Promise<boolean> =>
    new Promise((resolve) => {
      if (closed) return resolve(false);
      const handle = clock.setTimeout(() => {
        sleeping.delete(handle);
        resolve(true);
      }, ms);
      sleeping.set(handle, () => resolve(false));
    });

  const drop = (job: Job, why: string, fields: Record<string, unknown> = {}): void => {
    counters.dropped += 1;
    logger.warn(`apns: push dropped (${why})`, { ...aboutJob(job), ...fields });
  };

  /** The `authorization` header of the token in use, made once per token rather than per push. */
  let authorization = { bearer: '', header: '' };
  const authorizationOf = (bearer: string): string => {
    if (authorization.bearer !== bearer) authorization = { bearer, header: `bearer ${bearer}` };
    return authorization.header;
  };

  const backoffMs = (retry: number, retryAfter: string | null): number => {
    // Full-jitter in [base/2, base); after a `retry-after`, never sooner than told and
    // spread over the half-base that follows so that many devices do not come back at once.
    const base = retryBaseMs * 2 ** (retry - 1);
    const told = retryAfterMs(retryAfter, clock.now());
    return told > 0 ? told + (random() * base) / 2 : base / 2 + (random() * base) / 2;
  };

  const deliver = async (job: Job): Promise<void> => {
    let retries = 0;
    let renewed = false;
    try {
      for (;;) {
        if (closed) return drop(job, 'transport closed');
        if (latest.get(job.key) !== job.seq) {
          counters.superseded += 1;
          return;
        }
        if (clock.now() >= job.expiresAtMs) return drop(job, 'expired');
        const bearer = provider.current();
        counters.providerTokens = provider.issued;
        const answer: ApnsAnswer = await connections.request(originOf(job.environment), job, authorizationOf(bearer));
        if (answer.kind === 'answer' && answer.status === 200) {
          counters.sent += 1;
          await job.afterSent?.();
          return;
        }
        if (answer.kind === 'answer' && REMOVE_TOKEN.has(`${answer.status} ${answer.reason}`)) {
          await registry.removeToken(job.deviceId, job.token);
          counters.tokensRemoved += 1;
          logger.info('apns: device token removed', { ...aboutJob(job), status: answer.status, reason: answer.reason });
          return;
        }
        if (answer.kind === 'answer' && answer.status === 403 && answer.reason === 'ExpiredProviderToken') {
          // Renewed once per push; `refused` renews at most once per token and never
          // inside Apple's 20 minutes, whatever the number of 403s in flight.
          if (renewed || !provider.refused(bearer)) {
            logger.error('apns: provider token refused as expired', { ...aboutJob(job), renewed });
            return drop(job, 'provider token refused');
          }
          renewed = true;
          counters.providerTokens = provider.issued;
          counters.retried += 1;
          continue;
        }
        const retryable = answer.kind !== 'answer' || answer.status === 429 || answer.status >= 500;
        if (answer.kind === 'timeout') counters.timeouts += 1;
        const fields =
          answer.kind === 'answer' ? { status: answer.status, reason: answer.reason } : { error: answer.kind === 'network' ? answer.error : 'timeout' };
        if (!retryable) {
          if (answer.status === 403) logger.error('apns: request refused: check the team id, key id, key and bundle id', { ...aboutJob(job), ...fields });
          return drop(job, 'refused', fields);
        }
        if (retries >= MAX_RETRIES) return drop(job, 'retries used up', fields);
        retries += 1;
        const delay = backoffMs(retries, answer.kind === 'answer' ? answer.retryAfter : null);
        if (clock.now() + delay >= job.expiresAtMs) return drop(job, 'expired', fields);
        counters.retried += 1;
        // A push waiting to retry holds no slot: fresh pushes go on meanwhile.
        job.leave();
        if (!(await sleep(delay))) return drop(job, 'transport closed');
      }
    } finally {
      if (latest.get(job.key) === job.seq) latest.delete(job.key);
    }
  };

  /**
   * Starts a push. `job` is the push's own, made with `seq`, `expiration` and `expiresAtMs`
   * at 0 and stamped here: it has its final shape from its literal (no property is added
   * per push, which would grow the object).
   */
  const submit = (job: Job): Promise<void> => {
    if (closed) {
      counters.dropped += 1;
      return Promise.resolve();
    }
    const seq = ++nextSeq;
    latest.set(job.key, seq);
    const expiration = Math.floor(clock.now() / 1000) + APNS_EXPIRATION_S;
    job.seq = seq;
    job.expiration = expiration;
    job.expiresAtMs = expiration * 1000;
    return deliver(job);
  };

  // Twice the streams at work, a few started per turn (docs/decisions/0058-apns-pacing.md).
  const admission = new Admission<string, ActivityPush | WidgetPush>(2 * maxConcurrentStreams, PUSHES_PER_TURN, (deviceId, push, leave) =>
    'phase' in push ? pushActivity(deviceId, push, leave) : pushWidget(deviceId, push, leave),
  );

  const topics = { liveactivity: `${bundleId}.push-type.liveactivity`, widgets: `${bundleId}.push-type.widgets` } as const;

  /**
   * An activity push's time and payload: the same for every device of a fan-out (one
   * push object, one `updated_at`), so they are made once per push object. A push without
   * a valid `updated_at` takes the clock's time, each device its own.
   */
  const preparedActivities = new WeakMap<ActivityPush, { at: number; body: string }>();
  const prepareActivity = (push: ActivityPush): { at: number; body: string } => {
    let prepared = preparedActivities.get(push);
    if (prepared !== undefined) return prepared;
    const parsed = Date.parse(push.updated_at);
    const at = Number.isFinite(parsed) ? parsed : clock.now();
    prepared = { at, body: JSON.stringify({ aps: activityAps(push, Math.floor(at / 1000)) }) };
    if (Number.isFinite(parsed)) preparedActivities.set(push, prepared);
    return prepared;
  };
  const activityAps = (push: ActivityPush, timestamp: number): Record<string, unknown> => {
    const contentState = { state: push.state, content: push.content };
    if (push.phase === 'start')
      return {
        timestamp,
        event: 'start',
        'content-state': contentState,
        'attributes-type': attributesType,
        attributes: { owner: push.owner, slug: push.slug, template: push.template },
        alert: { title: push.slug, body: '' },
        'input-push-token': 1,
      };
    if (push.phase === 'update') return { timestamp, event: 'update', 'content-state': contentState };
    return { timestamp, event: 'end', 'content-state': contentState, 'dismissal-date': timestamp + Math.ceil(push.dismissal_delay_s) };
  };

  const pushActivity = async (deviceId: string, push: ActivityPush, leave: () => void): Promise<void> => {
    const registrations = await registry.registrationsOf(deviceId);
    const token =
      registrations === null ? null : push.phase === 'start' ? registrations.pushToStart : await registry.activityTokenOf(deviceId, push.owner, push.slug);
    if (registrations === null || token === null) {
      counters.skipped += 1;
      return;
    }
    // `timestamp` never goes back for one activity on one device: a push older than
    // one already handed over is stale (APNs would drop it), so it is not sent.
    const activityKey = `${deviceId}\n${push.owner}/${push.slug}`;
    const { at, body } = prepareActivity(push);
    const previous = lastUpdate.get(activityKey);
    if (previous !== undefined && at < previous) {
      counters.superseded += 1;
      return;
    }
    lastUpdate.set(activityKey, at);
    await submit({
      deviceId,
      token,
      key: `${token}\n${push.owner}/${push.slug}`,
      environment: registrations.environment,
      pushType: 'liveactivity',
      topic: topics.liveactivity,
      priority: push.phase === 'update' ? updatePriority : 10,
      body,
      owner: push.owner,
      slug: push.slug,
      what: push.phase,
      afterSent: push.phase === 'end' ? () => registry.forgetActivityToken(deviceId, push.owner, push.slug, token) : undefined,
      leave,
      seq: 0,
      expiration: 0,
      expiresAtMs: 0,
    });
  };

  const pushWidget = async (deviceId: string, push: WidgetPush, leave: () => void): Promise<void> => {
    const registrations = await registry.registrationsOf(deviceId);
    if (registrations === null || registrations.widgets === null) {
      counters.skipped += 1;
      return;
    }
    const token = registrations.widgets;
    await submit({
      deviceId,
      token,
      key: `${token}\n${push.owner}/${push.slug}`,
      environment: registrations.environment,
      pushType: 'widgets',
      topic: topics.widgets,
      priority: null,
      body: WIDGETS_BODY,
      owner: push.owner,
      slug: push.slug,
      what: 'widgets',
      afterSent: undefined,
      leave,
      seq: 0,
      expiration: 0,
      expiresAtMs: 0,
    });
  };

  return {
    name: 'apns',
    pushActivity: (deviceId, push: ActivityPush) => admission.run(deviceId, push),
    pushWidget: (deviceId, push: WidgetPush) => admission.run(deviceId, push),

    counters: () => ({ ...counters, providerTokens: provider.issued }),
    load: () => connections.load(),
    async close() {
      closed = true;
      for (const [handle, wake] of sleeping) {
        clock.clearTimeout(handle);
        wake();
      }
      sleeping.clear();
      await connections.close();
    },
  };
}

const WIDGETS_BODY = JSON.stringify({ aps: { 'content-changed': true } });

/** `retry-after` in seconds or as an HTTP date, in milliseconds from now (0 when absent or bad). */
export function retryAfterMs(header: string | null, now: number): number {
  if (header === null) return 0;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isFinite(date) ? Math.max(0, date - now) : 0;
}

/** A map that forgets its oldest entries beyond `capacity` (insertion order, refreshed on set). */
class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }
}
