import { createPublicKey, randomUUID, verify, type KeyObject } from 'node:crypto';
import { constants, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { RequestLog, startDoubleServer } from '@tilecast/core/push';
import { ChannelBook, parseJson, type DoubleChannel, type Reply } from './channels.js';
import { isObject, payloadProblem } from './payload.js';

export { selfSignedCertificate } from '@tilecast/core/push';
export { payloadProblem } from './payload.js';
export type { DoubleChannel } from './channels.js';

/**
 * An APNs test double: HTTP/2 over TLS on 127.0.0.1 with a self-signed certificate made
 * at start. It checks what Apple checks (the provider token's ES256 signature, `kid`,
 * `iss` and age, renewals no more often than every 20 minutes per connection, the path,
 * the headers) plus the payload shapes of docs/contract/apns.md#apns-activity-start,
 * docs/contract/apns.md#apns-activity-update-end and docs/contract/apns.md#apns-widget-push, records every request, and
 * answers 200 unless told otherwise. It is one APNs environment: its push API and its channel
 * management API (docs/contract/broadcast-channels.md#broadcast-channel-management-api) on one
 * origin, the transport's `origin` and `manageOrigin` alike, with the channels it made and
 * the broadcasts sent on them (docs/contract/broadcast-channels.md#broadcast-update-end).
 * For tests and demos only: never production.
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
  /** Broadcast is enabled for the app (default true); else channel and broadcast requests answer `400 FeatureNotEnabled`. */
  broadcast?: boolean;
  /** Channels that may exist at once (default 10,000, as APNs); a creation past it answers `400 CannotCreateChannelConfig`. */
  channelLimit?: number;
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
  /**
   * Which requests it answers (default `device`, the per-token pushes): `broadcast` for
   * broadcasts, `channels` for channel management. A rule's answer takes the place of what
   * the double would have done (a channel is then neither made nor deleted).
   */
  on?: 'device' | 'broadcast' | 'channels';
  /** Only for this device token (default: any request). */
  token?: string;
  /** Only for this channel (`apns-channel-id`) of a broadcast or management request (default: any). */
  channel?: string;
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

/** A broadcast (`POST /4/broadcasts/apps/<bundle>`), as received and answered. */
export interface ReceivedBroadcast {
  at: number;
  connection: number;
  path: string;
  /** `apns-channel-id`, or null. */
  channelId: string | null;
  /** `apns-*` headers as received. */
  headers: Record<string, string>;
  jwt: ReceivedPush['jwt'];
  payload: unknown;
  /** As for `ReceivedPush`. */
  status: number;
  reason: string | null;
}

/** A channel management request (`/1/apps/<bundle>/channels` or `/all-channels`), as received and answered. */
export interface ReceivedChannelRequest {
  at: number;
  connection: number;
  method: string;
  path: string;
  /** `apns-channel-id` of the request (read, delete), else of the answer (a creation), else null. */
  channelId: string | null;
  /** The request's body (a creation's), parsed. */
  body: unknown;
  jwt: ReceivedPush['jwt'];
  status: number;
  reason: string | null;
}

export interface ApnsDouble {
  /** `https://127.0.0.1:<port>`: the transport's `origin`. */
  readonly origin: string;
  /** The certificate (PEM) to trust: the transport's `ca`. */
  readonly ca: string;
  /** Every per-token push request (and any request to a path the double does not know), in arrival order. */
  readonly received: ReceivedPush[];
  /** Every broadcast request, in arrival order. */
  readonly broadcasts: ReceivedBroadcast[];
  /** Every channel management request, in arrival order. */
  readonly channelRequests: ReceivedChannelRequest[];
  /** The channels that exist now (made, and not deleted), oldest first. */
  channels(): DoubleChannel[];
  /** Makes a channel as a creation would, even past the limit (what a crashed sender leaves behind); answers its id. */
  addChannel(policy?: 0 | 1): string;
  /** Deletes a channel behind the sender's back (APNs then answers `ChannelNotRegistered` for it); false when there was none. */
  removeChannel(id: string): boolean;
  /** Turns broadcast on or off for the app (see `ApnsDoubleOptions.broadcast`). */
  enableBroadcast(on?: boolean): void;
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

/** Where a request goes: a device token's push (or a path the double does not know), a broadcast, or channel management. */
type Route = { kind: 'device' } | { kind: 'broadcast'; bundleId: string } | { kind: 'manage'; bundleId: string; resource: 'channels' | 'all-channels' };

function routeOf(path: string): Route {
  const broadcast = /^\/4\/broadcasts\/apps\/([^/]+)$/.exec(path);
  if (broadcast !== null) return { kind: 'broadcast', bundleId: broadcast[1]! };
  const manage = /^\/1\/apps\/([^/]+)\/(channels|all-channels)$/.exec(path);
  if (manage !== null) return { kind: 'manage', bundleId: manage[1]!, resource: manage[2] as 'channels' | 'all-channels' };
  return { kind: 'device' };
}
const PROVIDER_TOKEN_MAX_AGE_S = 3600;
const PROVIDER_TOKEN_MIN_RENEWAL_S = 20 * 60;
const MAX_PAYLOAD_BYTES = 4096;

export async function startApnsDouble(options: ApnsDoubleOptions): Promise<ApnsDouble> {
  const given = options.publicKey;
  const publicKey = typeof given !== 'string' && given.type === 'public' ? given : createPublicKey(given);
  const now = () => (options.clock ?? Date).now();
  const log = new RequestLog<ReceivedPush>();
  const broadcasts: ReceivedBroadcast[] = [];
  const channelRequests: ReceivedChannelRequest[] = [];
  const book = new ChannelBook(options.channelLimit ?? 10_000);
  let broadcastEnabled = options.broadcast ?? true;
  const rules: Array<Required<Pick<DoubleRule, 'answer' | 'on' | 'times'>> & Pick<DoubleRule, 'token' | 'channel'>> = [];
  const stalled = new Set<ServerHttp2Stream>();
  const tokensBySession = new WeakMap<Http2Session, { token: string; iat: number }>();
  let turningAway = false;
  let stallingAll = false;
  let answerDelayMs = 0;
  const held = new Set<NodeJS.Timeout>();

  const turnAway = (session: Http2Session) => {
    if (!turningAway) return;
    session.goaway(constants.NGHTTP2_NO_ERROR, 0, Buffer.from(JSON.stringify({ reason: 'Shutdown' })));
    session.close();
  };

  /** Sends `reply`: a refusal's `{"reason"}`, else a success's headers and JSON body, if any. */
  const respond = (stream: ServerHttp2Stream, reply: Reply) => {
    if (stream.closed || stream.destroyed) return;
    const headers: Record<string, string | number> = { ':status': reply.status, 'apns-id': randomUUID(), ...reply.headers };
    if (reply.retryAfter !== undefined) headers['retry-after'] = reply.retryAfter;
    const { reason } = reply;
    const body = reason === null ? reply.body : reply.status === 410 ? { reason, timestamp: now() } : { reason };
    if (body === undefined) {
      stream.respond(headers, { endStream: true });
      return;
    }
    stream.respond({ ...headers, 'content-type': 'application/json' });
    stream.end(JSON.stringify(body));
  };

  const handle = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, size: number) => {
    const route = routeOf(String(headers[':path'] ?? ''));
    if (route.kind === 'broadcast') return handleBroadcast(stream, headers, body, size, route.bundleId);
    if (route.kind === 'manage') return handleManagement(stream, headers, body, route.bundleId, route.resource);
    handleDevice(stream, headers, body, size);
  };

  const handleDevice = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, size: number) => {
    const session = stream.session!;
    const path = String(headers[':path'] ?? '');
    const deviceToken = path.startsWith('/3/device/') ? path.slice('/3/device/'.length) : '';
    const entry: ReceivedPush = {
      at: now(),
      connection: server.connectionOf(session),
      method: String(headers[':method']),
      path,
      deviceToken,
      headers: apnsHeadersOf(headers),
      jwt: decodeJwt(headers.authorization),
      payload: parseJson(body.toString('utf8')),
      status: 0,
      reason: null,
    };
    const refusal = check(headers, deviceToken, body, size, session);
    if (refusal !== null) {
      entry.status = refusal.status;
      entry.reason = refusal.reason;
      log.record(entry);
      return respond(stream, { ...refusal });
    }
    const answer = ruleFor('device', (rule) => rule.token === undefined || rule.token === deviceToken.toLowerCase());
    answerWith(
      stream,
      entry,
      () => log.record(entry),
      answer,
      () => ({ status: 200, reason: null }),
    );
  };

  /** docs/contract/broadcast-channels.md#broadcast-update-end: checked as APNs would, then answered `200` unless told otherwise. */
  const handleBroadcast = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, size: number, bundleId: string) => {
    const session = stream.session!;
    const channelId = typeof headers['apns-channel-id'] === 'string' ? headers['apns-channel-id'] : null;
    const entry: ReceivedBroadcast = {
      at: now(),
      connection: server.connectionOf(session),
      path: String(headers[':path']),
      channelId,
      headers: apnsHeadersOf(headers),
      jwt: decodeJwt(headers.authorization),
      payload: parseJson(body.toString('utf8')),
      status: 0,
      reason: null,
    };
    const recordIt = () => void broadcasts.push(entry);
    const refusal = channelGate(headers, session, bundleId) ?? book.broadcastProblem(headers, body, size);
    if (refusal !== null) {
      entry.status = refusal.status;
      entry.reason = refusal.reason;
      recordIt();
      return respond(stream, refusal);
    }
    const answer = ruleFor('broadcast', (rule) => rule.channel === undefined || rule.channel === channelId);
    answerWith(stream, entry, recordIt, answer, () => ({ status: 200, reason: null }));
  };

  /** docs/contract/broadcast-channels.md#broadcast-channel-management-api: the channels kept in `book`. */
  const handleManagement = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, bundleId: string, resource: 'channels' | 'all-channels') => {
    const session = stream.session!;
    const asked = typeof headers['apns-channel-id'] === 'string' ? headers['apns-channel-id'] : null;
    const entry: ReceivedChannelRequest = {
      at: now(),
      connection: server.connectionOf(session),
      method: String(headers[':method']),
      path: String(headers[':path']),
      channelId: asked,
      body: parseJson(body.toString('utf8')),
      jwt: decodeJwt(headers.authorization),
      status: 0,
      reason: null,
    };
    const recordIt = () => void channelRequests.push(entry);
    const refusal = channelGate(headers, session, bundleId);
    if (refusal !== null) {
      entry.status = refusal.status;
      entry.reason = refusal.reason;
      recordIt();
      return respond(stream, refusal);
    }
    const answer = ruleFor('channels', (rule) => rule.channel === undefined || rule.channel === asked);
    answerWith(stream, entry, recordIt, answer, () => {
      const reply = book.manage(resource, headers, body);
      entry.channelId = reply.headers?.['apns-channel-id'] ?? entry.channelId;
      return reply;
    });
  };

  /** What every broadcast and management request passes first: the provider token, the app's bundle, the feature. */
  const channelGate = (headers: IncomingHttpHeaders, session: Http2Session, bundleId: string): Reply | null => {
    const auth = verifyProviderToken(headers.authorization, session);
    if (auth !== null) return auth;
    if (bundleId !== options.bundleId) return { status: 400, reason: 'TopicDisallowed' };
    return broadcastEnabled ? null : { status: 400, reason: 'FeatureNotEnabled' };
  };

  /** The answer of the first rule `on` these requests that `matches` (used up once), or stalling while every request stalls. */
  const ruleFor = (on: NonNullable<DoubleRule['on']>, matches: (rule: DoubleRule) => boolean): DoubleAnswer | undefined => {
    if (stallingAll) return 'stall';
    const index = rules.findIndex((rule) => rule.on === on && matches(rule));
    if (index === -1) return undefined;
    const rule = rules[index]!;
    if (--rule.times <= 0) rules.splice(index, 1);
    return rule.answer;
  };

  /**
   * Answers a request that passed the checks: with `answer` (a rule's), else with what `act`
   * does; `entry` takes the status and reason as the answer is sent (after `delayAnswers`).
   */
  const answerWith = (
    stream: ServerHttp2Stream,
    entry: { status: number; reason: string | null },
    recordIt: () => void,
    answer: DoubleAnswer | undefined,
    act: () => Reply,
  ) => {
    if (typeof answer === 'string') {
      entry.reason = answer;
      recordIt();
      return misbehave(stream, answer);
    }
    const reply: Reply = answer === undefined ? act() : { status: answer.status, reason: answer.reason ?? null, retryAfter: answer.retryAfter };
    const settle = () => {
      entry.status = reply.status;
      entry.reason = reply.reason;
    };
    if (answerDelayMs === 0) {
      settle();
      recordIt();
      return respond(stream, reply);
    }
    entry.reason = 'delayed';
    recordIt();
    const timer = setTimeout(() => {
      held.delete(timer);
      if (stream.closed || stream.destroyed) return;
      settle();
      respond(stream, reply);
    }, answerDelayMs);
    held.add(timer);
    stream.on('close', () => {
      clearTimeout(timer);
      held.delete(timer);
    });
  };

  const misbehave = (stream: ServerHttp2Stream, answer: 'goaway' | 'stall' | 'reset') => {
    const session = stream.session!;
    if (answer === 'stall') stalled.add(stream);
    else if (answer === 'reset') stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    else {
      session.goaway(constants.NGHTTP2_NO_ERROR, Math.max(0, (stream.id ?? 2) - 2), Buffer.from(JSON.stringify({ reason: 'Shutdown' })));
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
      session.close();
    }
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

  // A name of its own: a sender trusting two doubles (push and management origins) finds each one's certificate by it.
  const server = await startDoubleServer({
    name: `Tilecast APNs test double ${randomUUID()}`,
    maxConcurrentStreams: options.maxConcurrentStreams ?? 1000,
    keepBytes: MAX_PAYLOAD_BYTES + 1,
    onSession: turnAway,
    refuses: () => turningAway,
    onStreamClose: (stream) => stalled.delete(stream),
    onRequest: handle,
  });

  return {
    origin: server.origin,
    ca: server.cert,
    received: log.entries,
    broadcasts,
    channelRequests,
    channels: () => book.list(),
    addChannel: (policy = 1) => book.add(policy),
    removeChannel: (id) => book.remove(id),
    enableBroadcast: (on = true) => void (broadcastEnabled = on),
    answer: (rule) => void rules.push({ ...rule, on: rule.on ?? 'device', times: rule.times ?? 1 }),
    delayAnswers: (ms) => void (answerDelayMs = Math.max(0, ms)),
    waitForRequests: (count) => log.waitFor(count),
    releaseStalled(answer = { status: 200 }) {
      for (const stream of [...stalled]) respond(stream, { status: answer.status, reason: answer.reason ?? null });
      stalled.clear();
    },
    goawayOnConnect: (on = true) => void (turningAway = on),
    stallAll: (on = true) => void (stallingAll = on),
    stats: () => server.stats(),
    async close() {
      for (const timer of held) clearTimeout(timer);
      held.clear();
      await server.close();
    },
  };
}

/** The `apns-*` headers of a request, as received. */
function apnsHeadersOf(headers: IncomingHttpHeaders): Record<string, string> {
  const found: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (name.startsWith('apns-') && typeof value === 'string') found[name] = value;
  return found;
}

function decodeJwt(authorization: string | undefined): ReceivedPush['jwt'] {
  const parts = authorization?.replace(/^bearer /, '').split('.');
  if (parts?.length !== 3) return null;
  const header = parseJson(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
  const claims = parseJson(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  if (!isObject(header) || !isObject(claims)) return null;
  return { header, claims };
}
