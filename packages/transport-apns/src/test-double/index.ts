import { createPublicKey, randomUUID, verify, type KeyObject } from 'node:crypto';
import { constants, createSecureServer, type Http2Server, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from '@tilecast/core/push';

export { selfSignedCertificate } from '@tilecast/core/push';

/**
 * An APNs test double: HTTP/2 over TLS on 127.0.0.1 with a self-signed certificate made
 * at start. It checks what Apple checks (the provider token's ES256 signature, `kid`,
 * `iss` and age, renewals no more often than every 20 minutes per connection, the path,
 * the headers) plus the payload shapes of docs/contract/apns.md#apns-activity-start,
 * docs/contract/apns.md#apns-activity-update-end and docs/contract/apns.md#apns-widget-push, records every request, and
 * answers 200 unless told otherwise. For tests and demos only: never production.
 */
export interface ApnsDoubleOptions {
  teamId: string;
  keyId: string;
  bundleId: string;
  /** The test `.p8`'s public key (a private key works too: its public half is used). */
  publicKey: string | KeyObject;
  /** Time for the provider tokens' age (default `Date.now`): share a test's fake clock. */
  clock?: { now(): number };
  /** The SETTINGS_MAX_CONCURRENT_STREAMS the double announces (default 1000, as APNs). */
  maxConcurrentStreams?: number;
}

/** What the double answers to a request: an APNs answer, or a misbehaviour. */
export type DoubleAnswer =
  | { status: number; reason?: string; retryAfter?: string }
  /** Sends GOAWAY that refuses this stream, then closes the connection. */
  | 'goaway'
  /** Never answers (until `releaseStalled`). */
  | 'stall'
  /** Resets the stream (RST_STREAM INTERNAL_ERROR). */
  | 'reset';

export interface DoubleRule {
  answer: DoubleAnswer;
  /** Only for this device token (default: any request). */
  token?: string;
  /** How many matching requests it answers (default 1). */
  times?: number;
}

export interface ReceivedPush {
  /** Double's clock when it came. */
  at: number;
  /** 1 for the first connection accepted, 2 for the next... */
  connection: number;
  method: string;
  path: string;
  /** The device token of the path. */
  deviceToken: string;
  /** `apns-*` headers as received. */
  headers: Record<string, string>;
  jwt: { header: Record<string, unknown>; claims: Record<string, unknown> } | null;
  payload: unknown;
  /**
   * The status and reason it was answered (0 and the misbehaviour for goaway, stall, reset;
   * 0 and `delayed` while a delayed answer is held, and for good when its stream closed first).
   */
  status: number;
  reason: string | null;
}

export interface ApnsDouble {
  /** `https://127.0.0.1:<port>`: the transport's `origin`. */
  readonly origin: string;
  /** The certificate (PEM) to trust: the transport's `ca`. */
  readonly ca: string;
  /** Every request, in arrival order. */
  readonly received: ReceivedPush[];
  /** Queues an answer: rules are tried in order and used up (see `DoubleRule.times`). */
  answer(rule: DoubleRule): void;
  /** Resolves once `count` requests have been received in all. */
  waitForRequests(count: number): Promise<void>;
  /**
   * Holds every answer from now on for `ms` before sending it, as a slow APNs does (0, the
   * default: at once). A held request is recorded on arrival; its status and reason are
   * set when it is answered, and stay `0`/`delayed` when its stream closed first (the
   * sender died with the push in flight).
   */
  delayAnswers(ms: number): void;
  /** Answers every stalled stream that is still open (default `200`). */
  releaseStalled(answer?: { status: number; reason?: string }): void;
  /**
   * While on, every request that passes the checks stalls, before any rule is used (an
   * APNs host that stops answering): it is recorded and never answered until
   * `releaseStalled`. Turning it off leaves the stalled streams as they are.
   */
  stallAll(on?: boolean): void;
  /**
   * While on, every connection accepted gets GOAWAY at once and is closed, before it
   * answers anything (an APNs host that turns connections away; `received` stays as it is).
   */
  goawayOnConnect(on?: boolean): void;
  /** Streams open now, the most ever open at once, and connections accepted. */
  stats(): { openStreams: number; peakOpenStreams: number; connections: number };
  close(): Promise<void>;
}

const HEX = /^[0-9a-fA-F]+$/;
const PROVIDER_TOKEN_MAX_AGE_S = 3600;
const PROVIDER_TOKEN_MIN_RENEWAL_S = 20 * 60;
const MAX_PAYLOAD_BYTES = 4096;

export async function startApnsDouble(options: ApnsDoubleOptions): Promise<ApnsDouble> {
  const given = options.publicKey;
  const publicKey = typeof given !== 'string' && given.type === 'public' ? given : createPublicKey(given);
  const now = () => (options.clock ?? Date).now();
  const { key, cert } = selfSignedCertificate('Tilecast APNs test double');
  const server: Http2Server = createSecureServer({
    key,
    cert,
    settings: { maxConcurrentStreams: options.maxConcurrentStreams ?? 1000 },
  });
  const received: ReceivedPush[] = [];
  const rules: Array<Required<Omit<DoubleRule, 'token'>> & { token?: string }> = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const stalled = new Set<ServerHttp2Stream>();
  const sessions = new Set<Http2Session>();
  const tokensBySession = new WeakMap<Http2Session, { token: string; iat: number }>();
  const sessionIds = new WeakMap<Http2Session, number>();
  let connections = 0;
  let openStreams = 0;
  let peakOpenStreams = 0;
  let turningAway = false;
  let stallingAll = false;
  let answerDelayMs = 0;
  const held = new Set<NodeJS.Timeout>();

  server.on('session', (session) => {
    sessions.add(session);
    sessionIds.set(session, ++connections);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
    if (turningAway) {
      session.goaway(constants.NGHTTP2_NO_ERROR, 0, Buffer.from(JSON.stringify({ reason: 'Shutdown' })));
      session.close();
    }
  });

  const record = (entry: ReceivedPush) => {
    received.push(entry);
    for (const waiter of [...waiters]) {
      if (received.length >= waiter.count) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    }
  };

  const respond = (stream: ServerHttp2Stream, status: number, reason: string | null, retryAfter?: string) => {
    if (stream.closed || stream.destroyed) return;
    const headers: Record<string, string | number> = { ':status': status, 'apns-id': randomUUID() };
    if (retryAfter !== undefined) headers['retry-after'] = retryAfter;
    if (reason === null) {
      stream.respond(headers, { endStream: true });
      return;
    }
    stream.respond({ ...headers, 'content-type': 'application/json' });
    stream.end(JSON.stringify(status === 410 ? { reason, timestamp: now() } : { reason }));
  };

  server.on('stream', (stream, headers) => {
    if (turningAway) {
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    openStreams += 1;
    peakOpenStreams = Math.max(peakOpenStreams, openStreams);
    stream.on('close', () => {
      openStreams -= 1;
      stalled.delete(stream);
    });
    stream.on('error', () => {});
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PAYLOAD_BYTES + 1) chunks.push(chunk);
    });
    stream.on('end', () => handle(stream, headers, Buffer.concat(chunks), size));
  });

  const handle = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, size: number) => {
    const session = stream.session!;
    const path = String(headers[':path'] ?? '');
    const deviceToken = path.startsWith('/3/device/') ? path.slice('/3/device/'.length) : '';
    const apnsHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(headers)) if (name.startsWith('apns-') && typeof value === 'string') apnsHeaders[name] = value;
    const entry: ReceivedPush = {
      at: now(),
      connection: sessionIds.get(session) ?? 0,
      method: String(headers[':method']),
      path,
      deviceToken,
      headers: apnsHeaders,
      jwt: decodeJwt(headers.authorization),
      payload: parseJson(body.toString('utf8')),
      status: 0,
      reason: null,
    };
    const refusal = check(headers, deviceToken, body, size, session);
    if (refusal !== null) {
      entry.status = refusal.status;
      entry.reason = refusal.reason;
      record(entry);
      return respond(stream, refusal.status, refusal.reason);
    }
    const index = stallingAll ? -1 : rules.findIndex((rule) => rule.token === undefined || rule.token === deviceToken.toLowerCase());
    const rule = index === -1 ? undefined : rules[index]!;
    if (rule !== undefined && --rule.times <= 0) rules.splice(index, 1);
    const answer: DoubleAnswer = stallingAll ? 'stall' : (rule?.answer ?? { status: 200 });
    if (typeof answer === 'string') {
      entry.reason = answer;
      record(entry);
      if (answer === 'stall') stalled.add(stream);
      else if (answer === 'reset') stream.close(constants.NGHTTP2_INTERNAL_ERROR);
      else {
        session.goaway(constants.NGHTTP2_NO_ERROR, Math.max(0, (stream.id ?? 2) - 2), Buffer.from(JSON.stringify({ reason: 'Shutdown' })));
        stream.close(constants.NGHTTP2_REFUSED_STREAM);
        session.close();
      }
      return;
    }
    const settle = () => {
      entry.status = answer.status;
      entry.reason = answer.reason ?? null;
    };
    if (answerDelayMs === 0) {
      settle();
      record(entry);
      return respond(stream, answer.status, answer.reason ?? null, answer.retryAfter);
    }
    entry.reason = 'delayed';
    record(entry);
    const timer = setTimeout(() => {
      held.delete(timer);
      if (stream.closed || stream.destroyed) return;
      settle();
      respond(stream, answer.status, answer.reason ?? null, answer.retryAfter);
    }, answerDelayMs);
    held.add(timer);
    stream.on('close', () => {
      clearTimeout(timer);
      held.delete(timer);
    });
  };

  /** What APNs would refuse, in the order it checks; null when the request is good. */
  const check = (
    headers: IncomingHttpHeaders,
    deviceToken: string,
    body: Buffer,
    size: number,
    session: Http2Session,
  ): { status: number; reason: string } | null => {
    if (headers[':method'] !== 'POST') return { status: 405, reason: 'MethodNotAllowed' };
    if (!String(headers[':path']).startsWith('/3/device/')) return { status: 404, reason: 'BadPath' };
    if (deviceToken === '' || !HEX.test(deviceToken)) return { status: 400, reason: 'BadDeviceToken' };
    const auth = verifyProviderToken(headers.authorization, session);
    if (auth !== null) return auth;
    const pushType = headers['apns-push-type'];
    if (pushType !== 'liveactivity' && pushType !== 'widgets') return { status: 400, reason: 'InvalidPushType' };
    if (headers['apns-topic'] === undefined) return { status: 400, reason: 'MissingTopic' };
    if (headers['apns-topic'] !== `${options.bundleId}.push-type.${pushType}`) return { status: 400, reason: 'TopicDisallowed' };
    const priority = headers['apns-priority'];
    if (priority !== undefined && !['5', '10'].includes(String(priority))) return { status: 400, reason: 'BadPriority' };
    const expiration = headers['apns-expiration'];
    if (expiration !== undefined && !/^\d+$/.test(String(expiration))) return { status: 400, reason: 'BadExpirationDate' };
    if (size === 0) return { status: 400, reason: 'PayloadEmpty' };
    if (size > MAX_PAYLOAD_BYTES) return { status: 413, reason: 'PayloadTooLarge' };
    const problem = payloadProblem(pushType, parseJson(body.toString('utf8')));
    // Apple does not check these shapes; the double does, and says so with its own reason.
    if (problem !== null) return { status: 400, reason: `DoubleBadPayload: ${problem}` };
    return null;
  };

  const verifyProviderToken = (authorization: string | undefined, session: Http2Session): { status: number; reason: string } | null => {
    if (authorization === undefined) return { status: 403, reason: 'MissingProviderToken' };
    const match = /^bearer ([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(authorization);
    if (match === null) return { status: 403, reason: 'InvalidProviderToken' };
    const token = authorization.slice('bearer '.length);
    const previous = tokensBySession.get(session);
    // The token this connection already presented and had verified: only its age can
    // have changed (a provider reuses one token for up to an hour, for every request).
    if (previous?.token === token) return now() / 1000 - previous.iat > PROVIDER_TOKEN_MAX_AGE_S ? { status: 403, reason: 'ExpiredProviderToken' } : null;
    const [, head, claims, signature] = match as unknown as [string, string, string, string];
    const jwt = decodeJwt(authorization);
    const good = verify('sha256', Buffer.from(`${head}.${claims}`), { key: publicKey, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
    if (!good || jwt === null) return { status: 403, reason: 'InvalidProviderToken' };
    const { alg, kid } = jwt.header;
    const { iss, iat } = jwt.claims;
    if (alg !== 'ES256' || kid !== options.keyId || iss !== options.teamId || !Number.isInteger(iat)) return { status: 403, reason: 'InvalidProviderToken' };
    if (now() / 1000 - (iat as number) > PROVIDER_TOKEN_MAX_AGE_S) return { status: 403, reason: 'ExpiredProviderToken' };
    if (previous !== undefined) {
      if ((iat as number) - previous.iat < PROVIDER_TOKEN_MIN_RENEWAL_S) return { status: 429, reason: 'TooManyProviderTokenUpdates' };
    }
    tokensBySession.set(session, { token, iat: iat as number });
    return null;
  };

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    origin: `https://127.0.0.1:${port}`,
    ca: cert,
    received,
    answer: (rule) => void rules.push({ ...rule, times: rule.times ?? 1 }),
    delayAnswers: (ms) => void (answerDelayMs = Math.max(0, ms)),
    waitForRequests: (count) => (received.length >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    releaseStalled(answer = { status: 200 }) {
      for (const stream of [...stalled]) respond(stream, answer.status, answer.reason ?? null);
      stalled.clear();
    },
    goawayOnConnect: (on = true) => void (turningAway = on),
    stallAll: (on = true) => void (stallingAll = on),
    stats: () => ({ openStreams, peakOpenStreams, connections }),
    async close() {
      for (const timer of held) clearTimeout(timer);
      held.clear();
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function decodeJwt(authorization: string | undefined): ReceivedPush['jwt'] {
  const parts = authorization?.replace(/^bearer /, '').split('.');
  if (parts?.length !== 3) return null;
  const header = parseJson(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
  const claims = parseJson(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  if (!isObject(header) || !isObject(claims)) return null;
  return { header, claims };
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The payload shapes of docs/contract/apns.md#apns-activity-start, docs/contract/apns.md#apns-activity-update-end and
 * docs/contract/apns.md#apns-widget-push; null when the payload has the right shape. */
export function payloadProblem(pushType: string, payload: unknown): string | null {
  if (!isObject(payload) || !isObject(payload.aps)) return 'no aps object';
  const aps = payload.aps;
  if (Object.keys(payload).length !== 1) return 'keys beside aps';
  if (pushType === 'widgets') {
    return Object.keys(aps).length === 1 && aps['content-changed'] === true ? null : 'a widgets push is {"aps":{"content-changed":true}}';
  }
  if (!Number.isInteger(aps.timestamp)) return 'timestamp is not whole seconds';
  if (!isObject(aps['content-state'])) return 'content-state is not an object';
  const contentState = aps['content-state'];
  if (!('state' in contentState) || !('content' in contentState) || Object.keys(contentState).length !== 2) return 'content-state is not {state, content}';
  const allowed: Record<string, string[]> = {
    start: ['timestamp', 'event', 'content-state', 'attributes-type', 'attributes', 'alert', 'input-push-token'],
    update: ['timestamp', 'event', 'content-state'],
    end: ['timestamp', 'event', 'content-state', 'dismissal-date'],
  };
  const keys = allowed[String(aps.event)];
  if (keys === undefined) return 'event is not start, update or end';
  const extra = Object.keys(aps).filter((k) => !keys.includes(k));
  if (extra.length > 0) return `unexpected aps keys: ${extra.join(', ')}`;
  if (aps.event === 'start') {
    if (typeof aps['attributes-type'] !== 'string') return 'attributes-type is not a string';
    const attributes = aps.attributes;
    if (!isObject(attributes) || typeof attributes.owner !== 'string' || typeof attributes.slug !== 'string' || typeof attributes.template !== 'string')
      return 'attributes is not {owner, slug, template}';
    if (!isObject(aps.alert) || typeof aps.alert.title !== 'string' || typeof aps.alert.body !== 'string') return 'alert is not {title, body}';
    if (aps['input-push-token'] !== 1) return 'input-push-token is not 1';
  }
  if (aps.event === 'end' && !Number.isInteger(aps['dismissal-date'])) return 'dismissal-date is not whole seconds';
  return null;
}
