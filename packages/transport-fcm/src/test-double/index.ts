import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { constants, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { RequestLog, startDoubleServer } from '@tilecast/core/push';
import { messageProblem } from './message-shape.js';

export { FCM_DATA_MAX_BYTES, FCM_TOKEN_PATTERN, messageProblem, tilecastDataProblem } from './message-shape.js';
export { makeTestServiceAccount, type TestServiceAccount, type TestServiceAccountFile } from './service-account.js';

/**
 * An FCM test double: HTTP/2 over TLS on 127.0.0.1 with a self-signed certificate made at
 * start, serving both Google endpoints the transport uses. `POST /token` takes the OAuth 2.0
 * JWT-bearer grant and checks the assertion as Google does (its RS256 signature against the
 * service account's public key, `iss`, `scope`, `aud`, `iat` and `exp`, a lifetime of at most
 * an hour), then issues access tokens that expire. `POST /v1/projects/<project>/messages:send`
 * checks the bearer token, the project and the message (docs/contract/android-fcm.md#fcm-message,
 * docs/contract/android-fcm.md#fcm-android-options), records every request, and answers
 * `200` with a message name unless told to answer one of FCM's errors or to misbehave. For
 * tests and demos only: never production.
 */
export interface FcmDoubleOptions {
  projectId: string;
  /** The service account's email: the assertion's `iss`. */
  clientEmail: string;
  /** The service account's public key (a private key works too: its public half is used). */
  publicKey: string | KeyObject;
  /** Time for assertions and access tokens (default `Date.now`): share a test's fake clock. */
  clock?: { now(): number };
  /** The `expires_in` of access tokens, in seconds (default 3599, as Google's). */
  accessTokenLifetimeS?: number;
  /** The SETTINGS_MAX_CONCURRENT_STREAMS the double announces (default 1000). */
  maxConcurrentStreams?: number;
}

/** FCM's errors, as the double answers them (Google's status, HTTP status and `FcmError` code). */
export type FcmDoubleError =
  | 'UNREGISTERED'
  | 'INVALID_ARGUMENT'
  | 'QUOTA_EXCEEDED'
  | 'UNAVAILABLE'
  | 'INTERNAL'
  | 'SENDER_ID_MISMATCH'
  | 'THIRD_PARTY_AUTH_ERROR'
  /** A `401` for the access token, as Google's front end sends it (no `FcmError` detail). */
  | 'UNAUTHENTICATED';

/** HTTP status and Google status of each error. */
export const FCM_DOUBLE_ERRORS: Readonly<Record<FcmDoubleError, { status: number; googleStatus: string; message: string }>> = {
  UNREGISTERED: { status: 404, googleStatus: 'NOT_FOUND', message: 'Requested entity was not found.' },
  INVALID_ARGUMENT: { status: 400, googleStatus: 'INVALID_ARGUMENT', message: 'Request contains an invalid argument.' },
  QUOTA_EXCEEDED: { status: 429, googleStatus: 'RESOURCE_EXHAUSTED', message: 'Quota exceeded for sending messages.' },
  UNAVAILABLE: { status: 503, googleStatus: 'UNAVAILABLE', message: 'The service is currently unavailable.' },
  INTERNAL: { status: 500, googleStatus: 'INTERNAL', message: 'Internal error encountered.' },
  SENDER_ID_MISMATCH: { status: 403, googleStatus: 'PERMISSION_DENIED', message: 'SenderId mismatch' },
  THIRD_PARTY_AUTH_ERROR: { status: 401, googleStatus: 'UNAUTHENTICATED', message: 'Auth error from APNS or Web Push Service' },
  UNAUTHENTICATED: {
    status: 401,
    googleStatus: 'UNAUTHENTICATED',
    message: 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
  },
};

/** What the double answers to a send: one of FCM's errors, or a misbehaviour. */
export type FcmDoubleAnswer =
  | {
      error: FcmDoubleError;
      /** `Retry-After`, as sent. */
      retryAfter?: string;
      /** For `INVALID_ARGUMENT`: the field a `BadRequest` detail names (`message.token` for a bad token). */
      field?: string;
    }
  /** Sends GOAWAY that refuses this stream, then closes the connection. */
  | 'goaway'
  /** Never answers (until `releaseStalled`). */
  | 'stall'
  /** Resets the stream (RST_STREAM INTERNAL_ERROR). */
  | 'reset';

export interface FcmDoubleRule {
  answer: FcmDoubleAnswer;
  /** Only for this registration token (default: any send). */
  token?: string;
  /** How many matching sends it answers (default 1). */
  times?: number;
}

/** What the token endpoint answers instead of a token: a status and an OAuth error, or no answer. */
export type TokenDoubleAnswer = { status: number; error?: string } | 'stall';

export interface ReceivedMessage {
  /** Double's clock when it came. */
  at: number;
  /** 1 for the first connection accepted, 2 for the next... */
  connection: number;
  method: string;
  path: string;
  /** The access token sent (the bearer's), or null. */
  accessToken: string | null;
  /** The request body as parsed (`{"message": {...}}`), or undefined when it is not JSON. */
  body: unknown;
  /** `message.token`. */
  registrationToken: string | null;
  /** `message.data.tilecast`, decoded. */
  data: unknown;
  /** The status it was answered (0 for goaway, stall, reset), and the FCM error (or misbehaviour). */
  status: number;
  error: string | null;
}

export interface TokenRequestRecord {
  at: number;
  /** The assertion's header and claims as decoded (before any check), or null when it was not a JWT. */
  assertion: { header: Record<string, unknown>; claims: Record<string, unknown> } | null;
  /** `200`, or what was refused and why (`invalid_grant: <what>`). */
  status: number;
  error: string | null;
}

export interface FcmDouble {
  /** `https://127.0.0.1:<port>`: the transport's `origin` and `tokenOrigin` both. */
  readonly origin: string;
  /** The certificate (PEM) to trust: the transport's `ca`. */
  readonly ca: string;
  /** Every send, in arrival order. */
  readonly received: ReceivedMessage[];
  /** Every token request, in arrival order. */
  readonly tokenRequests: TokenRequestRecord[];
  /** Queues an answer to sends: rules are tried in order and used up (see `FcmDoubleRule.times`). */
  answer(rule: FcmDoubleRule): void;
  /** Queues an answer of the token endpoint (used up, `times` default 1). */
  answerToken(answer: TokenDoubleAnswer, times?: number): void;
  /** From now on every access token issued so far is refused with `401` (a revoked or rotated key). */
  revokeAccessTokens(): void;
  /** Resolves once `count` sends have been received in all. */
  waitForRequests(count: number): Promise<void>;
  /** Answers every stalled send (`200`, or the error given) and token request (`500`) still open. */
  releaseStalled(answer?: { error: FcmDoubleError }): void;
  /** Streams open now, the most ever open at once, connections accepted, access tokens issued. */
  stats(): { openStreams: number; peakOpenStreams: number; connections: number; accessTokens: number };
  close(): Promise<void>;
}

const TOKEN_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
const MAX_ASSERTION_LIFETIME_S = 3600;
/** How far ahead of the double's clock an assertion's `iat` may be (clock skew Google tolerates). */
const CLOCK_SKEW_S = 300;
const MAX_BODY_BYTES = 64 * 1024;
const SEND_PATH = /^\/v1\/projects\/([^/]+)\/messages:send$/;

export async function startFcmDouble(options: FcmDoubleOptions): Promise<FcmDouble> {
  const given = options.publicKey;
  const publicKey = typeof given !== 'string' && given.type === 'public' ? given : createPublicKey(given);
  const now = () => (options.clock ?? Date).now();
  const lifetimeS = options.accessTokenLifetimeS ?? 3599;
  const log = new RequestLog<ReceivedMessage>();
  const tokenRequests: TokenRequestRecord[] = [];
  const rules: Array<{ answer: FcmDoubleAnswer; token?: string; times: number }> = [];
  const tokenRules: Array<{ answer: TokenDoubleAnswer; times: number }> = [];
  /** Access tokens issued, and when each expires (double's clock, ms). */
  const accessTokens = new Map<string, number>();
  /** Streams left without an answer, and how each is answered (a send: 200 or the error given). */
  const stalled = new Map<ServerHttp2Stream, (error?: FcmDoubleError) => void>();
  let issued = 0;
  let messageIds = 0;

  const respondJson = (stream: ServerHttp2Stream, status: number, body: unknown, extra: Record<string, string> = {}) => {
    if (stream.closed || stream.destroyed) return;
    stream.respond({ ':status': status, 'content-type': 'application/json; charset=UTF-8', ...extra });
    stream.end(JSON.stringify(body));
  };

  /** Google's error body: `{"error": {code, message, status, details}}`. */
  const errorBody = (error: FcmDoubleError, field?: string, description?: string) => {
    const { status, googleStatus, message } = FCM_DOUBLE_ERRORS[error];
    const details: unknown[] = [];
    if (error !== 'UNAUTHENTICATED') details.push({ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: error });
    if (field !== undefined)
      details.push({ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field, description: description ?? message }] });
    return { error: { code: status, message: description ?? message, status: googleStatus, ...(details.length > 0 ? { details } : {}) } };
  };

  const handle = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer) => {
    const text = body.toString('utf8');
    if (headers[':path'] === '/token') handleToken(stream, headers, text);
    else handleSend(stream, headers, text);
  };

  const handleToken = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, text: string) => {
    const form = new URLSearchParams(text);
    const assertion = form.get('assertion') ?? '';
    const entry: TokenRequestRecord = { at: now(), assertion: decodeJwt(assertion), status: 200, error: null };
    tokenRequests.push(entry);
    const rule = tokenRules[0];
    if (rule !== undefined && --rule.times <= 0) tokenRules.shift();
    if (rule?.answer === 'stall') {
      entry.status = 0;
      entry.error = 'stall';
      stalled.set(stream, () => respondJson(stream, 500, { error: 'internal_failure' }));
      return;
    }
    const refusal =
      headers[':method'] !== 'POST'
        ? { status: 405, error: 'invalid_request: POST only' }
        : !String(headers['content-type']).startsWith('application/x-www-form-urlencoded')
          ? { status: 400, error: 'invalid_request: the body is a form' }
          : form.get('grant_type') !== JWT_BEARER
            ? { status: 400, error: 'unsupported_grant_type: Invalid grant_type' }
            : assertionProblem(assertion);
    const answer = refusal ?? (rule === undefined ? null : { status: rule.answer.status, error: rule.answer.error ?? 'internal_failure' });
    if (answer !== null) {
      entry.status = answer.status;
      entry.error = answer.error;
      const [error, description] = answer.error.split(': ');
      return respondJson(stream, answer.status, { error, ...(description === undefined ? {} : { error_description: description }) });
    }
    const accessToken = `ya29.double-${randomBytes(24).toString('base64url')}`;
    accessTokens.set(accessToken, now() + lifetimeS * 1000);
    issued += 1;
    respondJson(stream, 200, { access_token: accessToken, expires_in: lifetimeS, token_type: 'Bearer' }, { 'cache-control': 'no-cache, no-store' });
  };

  /** What Google refuses in an assertion (`invalid_grant: ...`, `invalid_scope: ...`), or null. */
  const assertionProblem = (assertion: string): { status: number; error: string } | null => {
    const parts = assertion.split('.');
    const jwt = decodeJwt(assertion);
    if (parts.length !== 3 || jwt === null) return { status: 400, error: 'invalid_grant: Invalid JWT' };
    const [head, claims, signature] = parts as [string, string, string];
    if (jwt.header.alg !== 'RS256') return { status: 400, error: 'invalid_grant: Invalid JWT: alg is not RS256' };
    let good = false;
    try {
      good = verify('sha256', Buffer.from(`${head}.${claims}`), publicKey, Buffer.from(signature, 'base64url'));
    } catch {
      good = false;
    }
    if (!good) return { status: 400, error: 'invalid_grant: Invalid JWT Signature.' };
    const { iss, scope, aud, iat, exp } = jwt.claims;
    if (iss !== options.clientEmail) return { status: 401, error: 'invalid_client: The OAuth client was not found.' };
    if (aud !== `${origin}/token`) return { status: 400, error: 'invalid_grant: Invalid JWT: aud is not this token endpoint' };
    if (typeof scope !== 'string' || !scope.split(' ').includes(TOKEN_SCOPE)) return { status: 400, error: 'invalid_scope: no firebase.messaging scope' };
    if (!Number.isInteger(iat) || !Number.isInteger(exp)) return { status: 400, error: 'invalid_grant: Invalid JWT: iat and exp are whole seconds' };
    const seconds = now() / 1000;
    if ((exp as number) <= (iat as number) || (exp as number) - (iat as number) > MAX_ASSERTION_LIFETIME_S)
      return { status: 400, error: 'invalid_grant: Invalid JWT: lifetime is not between 0 and 1 hour' };
    if ((iat as number) > seconds + CLOCK_SKEW_S || (exp as number) <= seconds)
      return { status: 400, error: 'invalid_grant: Invalid JWT: Token must be a short-lived token and in a reasonable timeframe.' };
    return null;
  };

  const handleSend = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, text: string) => {
    const session = stream.session!;
    const path = String(headers[':path'] ?? '');
    const bearer = /^Bearer (\S+)$/.exec(String(headers.authorization ?? ''));
    const body = parseJson(text);
    const message = (body as { message?: { token?: unknown; data?: { tilecast?: unknown } } } | undefined)?.message;
    const registrationToken = typeof message?.token === 'string' ? message.token : null;
    const entry: ReceivedMessage = {
      at: now(),
      connection: server.connectionOf(session),
      method: String(headers[':method']),
      path,
      accessToken: bearer?.[1] ?? null,
      body,
      registrationToken,
      data: typeof message?.data?.tilecast === 'string' ? parseJson(message.data.tilecast) : undefined,
      status: 0,
      error: null,
    };
    const answerWith = (error: FcmDoubleError, extra: { field?: string; description?: string; retryAfter?: string } = {}) => {
      entry.status = FCM_DOUBLE_ERRORS[error].status;
      entry.error = extra.field === undefined ? error : `${error} ${extra.field}`;
      log.record(entry);
      respondJson(
        stream,
        entry.status,
        errorBody(error, extra.field, extra.description),
        extra.retryAfter === undefined ? {} : { 'retry-after': extra.retryAfter },
      );
    };
    // What FCM checks before anything else: the access token, then the path and method.
    const expiresAt = bearer === null ? undefined : accessTokens.get(bearer[1]!);
    if (expiresAt === undefined || now() >= expiresAt) return answerWith('UNAUTHENTICATED');
    const project = SEND_PATH.exec(path)?.[1];
    if (headers[':method'] !== 'POST' || project === undefined)
      return answerWith('UNREGISTERED', { description: `no such method: ${headers[':method']} ${path}` });
    if (project !== options.projectId) return answerWith('SENDER_ID_MISMATCH', { description: `project ${project} is not this double's` });
    if (!String(headers['content-type']).startsWith('application/json')) return answerWith('INVALID_ARGUMENT', { description: 'the body is JSON' });
    const problem = messageProblem(body);
    // FCM names the field at fault; the description says it was the double's own check.
    if (problem !== null) return answerWith('INVALID_ARGUMENT', { field: problem.field, description: `DoubleBadMessage: ${problem.problem}` });
    const index = rules.findIndex((rule) => rule.token === undefined || rule.token === registrationToken);
    const rule = index === -1 ? undefined : rules[index]!;
    if (rule !== undefined && --rule.times <= 0) rules.splice(index, 1);
    const answer = rule?.answer;
    if (answer === undefined) {
      entry.status = 200;
      log.record(entry);
      return respondJson(stream, 200, { name: `projects/${options.projectId}/messages/0:${Date.now()}%${(++messageIds).toString(16)}` });
    }
    if (typeof answer !== 'string') return answerWith(answer.error, { field: answer.field, retryAfter: answer.retryAfter });
    entry.error = answer;
    log.record(entry);
    if (answer === 'stall')
      stalled.set(stream, (error) => {
        if (error === undefined) return respondJson(stream, 200, { name: `projects/${options.projectId}/messages/stalled` });
        respondJson(stream, FCM_DOUBLE_ERRORS[error].status, errorBody(error));
      });
    else if (answer === 'reset') stream.close(constants.NGHTTP2_INTERNAL_ERROR);
    else {
      session.goaway(constants.NGHTTP2_NO_ERROR, Math.max(0, (stream.id ?? 2) - 2));
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
      session.close();
    }
  };

  const server = await startDoubleServer({
    name: 'Tilecast FCM test double',
    maxConcurrentStreams: options.maxConcurrentStreams ?? 1000,
    keepBytes: MAX_BODY_BYTES,
    onStreamClose: (stream) => stalled.delete(stream),
    onRequest: handle,
  });
  const { origin } = server;

  return {
    origin,
    ca: server.cert,
    received: log.entries,
    tokenRequests,
    answer: (rule) => void rules.push({ ...rule, times: rule.times ?? 1 }),
    answerToken: (answer, times = 1) => void tokenRules.push({ answer, times }),
    revokeAccessTokens: () => accessTokens.clear(),
    waitForRequests: (count) => log.waitFor(count),
    releaseStalled(answer) {
      for (const release of [...stalled.values()]) release(answer?.error);
      stalled.clear();
    },
    stats: () => ({ ...server.stats(), accessTokens: issued }),
    close: () => server.close(),
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function decodeJwt(jwt: string): TokenRequestRecord['assertion'] {
  const parts = jwt.split('.');
  if (parts.length !== 3) return null;
  const header = parseJson(Buffer.from(parts[0]!, 'base64url').toString('utf8'));
  const claims = parseJson(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  return isObject(header) && isObject(claims) ? { header, claims } : null;
}
