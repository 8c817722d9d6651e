import { connect, constants } from 'node:http2';
import type { Clock } from '@tilecast/core';

/** The OAuth 2.0 JWT-bearer grant (RFC 7523) that exchanges a signed assertion for an access token. */
export const JWT_BEARER_GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** The token endpoint's path on its origin (the origin is an option; the path is not). */
export const TOKEN_PATH = '/token';

/** What a token request came to. */
export type TokenAnswer =
  | { kind: 'token'; accessToken: string; expiresInS: number }
  /** The endpoint refused the grant (`4xx`: a wrong key or account, a clock far off): another try gives the same. */
  | { kind: 'refused'; status: number; error: string | null }
  /** No usable answer (network, timeout, `5xx`, an unreadable body): worth another try. */
  | { kind: 'failed'; error: string };

export interface TokenRequest {
  origin: string;
  ca?: string | Buffer | Array<string | Buffer>;
  /** The signed JWT (docs/contract/android-fcm.md#fcm-access-token). */
  assertion: string;
  timeoutMs: number;
  clock: Clock;
}

/** The longest token answer read (a Google one is under 2 KB). */
const MAX_ANSWER_BYTES = 64 * 1024;

/**
 * POSTs the grant to `<origin>/token` over a connection of its own (HTTP/2, closed after
 * the answer): a token lasts an hour, so a connection kept for it would idle 59 minutes.
 */
export function requestAccessToken(request: TokenRequest): Promise<TokenAnswer> {
  const { clock } = request;
  return new Promise((resolve) => {
    let session: ReturnType<typeof connect>;
    try {
      session = connect(request.origin, request.ca === undefined ? {} : { ca: request.ca });
    } catch (error) {
      resolve({ kind: 'failed', error: String(error) });
      return;
    }
    let settled = false;
    const timer = clock.setTimeout(() => finish({ kind: 'failed', error: 'timeout' }), request.timeoutMs);
    const finish = (answer: TokenAnswer) => {
      if (settled) return;
      settled = true;
      clock.clearTimeout(timer);
      session.destroy();
      resolve(answer);
    };
    session.on('error', (error) => finish({ kind: 'failed', error: error.message }));
    const stream = session.request({
      ':method': 'POST',
      ':path': TOKEN_PATH,
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/json',
    });
    let status = 0;
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('response', (headers) => void (status = Number(headers[':status'])));
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
      else stream.close(constants.NGHTTP2_CANCEL);
    });
    stream.on('error', (error) => finish({ kind: 'failed', error: error.message }));
    stream.on('close', () => {
      if (status === 0) finish({ kind: 'failed', error: `stream closed without an answer (code ${stream.rstCode ?? 'none'})` });
      else if (size > MAX_ANSWER_BYTES) finish({ kind: 'failed', error: 'answer too long' });
      else finish(tokenAnswer(status, Buffer.concat(chunks).toString('utf8')));
    });
    stream.end(`grant_type=${encodeURIComponent(JWT_BEARER_GRANT)}&assertion=${request.assertion}`);
  });
}

/** Reads the endpoint's answer: `{"access_token", "expires_in", "token_type"}` on `200`, `{"error", ...}` otherwise. */
export function tokenAnswer(status: number, text: string): TokenAnswer {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: handled below as an answer without the fields.
  }
  if (status >= 400 && status < 500) return { kind: 'refused', status, error: typeof body.error === 'string' ? body.error : null };
  if (status !== 200) return { kind: 'failed', error: `status ${status}` };
  const { access_token: accessToken, expires_in: expiresInS } = body;
  if (typeof accessToken !== 'string' || accessToken === '' || /\s/.test(accessToken)) return { kind: 'failed', error: 'no access_token in the answer' };
  if (typeof expiresInS !== 'number' || !Number.isFinite(expiresInS) || expiresInS <= 0) return { kind: 'failed', error: 'no expires_in in the answer' };
  return { kind: 'token', accessToken, expiresInS };
}
