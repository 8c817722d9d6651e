import { sign } from 'node:crypto';
import type { Clock, Logger } from '@tilecast/core';
import type { ServiceAccount } from './service-account.js';
import { requestAccessToken, TOKEN_PATH, type TokenAnswer } from './token-endpoint.js';

/** The scope that lets an access token send FCM messages. */
export const FCM_SCOPE = 'https://www.googleapis.com/auth/firebase.messaging';
/** The assertion's lifetime (`exp - iat`): Google accepts at most an hour. */
export const ASSERTION_LIFETIME_S = 3600;
/** An access token is renewed this long before it expires. */
export const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;
/** A `401` renews the token in use at most this often (a service that refuses every token gets no storm of renewals). */
export const FORCED_RENEWAL_MIN_MS = 60_000;

const base64url = (text: string): string => Buffer.from(text).toString('base64url');

/** The JWT-bearer assertion: RS256, `{iss, scope, aud, iat, exp}` (docs/contract/android-fcm.md#fcm-assertion). */
export function signAssertion(account: ServiceAccount, audience: string, iat: number): string {
  const header = base64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const claims = base64url(JSON.stringify({ iss: account.clientEmail, scope: FCM_SCOPE, aud: audience, iat, exp: iat + ASSERTION_LIFETIME_S }));
  const input = `${header}.${claims}`;
  return `${input}.${sign('sha256', Buffer.from(input), account.key).toString('base64url')}`;
}

/** What a renewal came to: the `authorization` to send, or why there is none (as the token endpoint said). */
export type Renewal = { kind: 'ok'; authorization: string } | Exclude<TokenAnswer, { kind: 'token' }>;

export interface AccessTokenOptions {
  account: ServiceAccount;
  /** The token endpoint's origin; the path is `/token`, and the assertion's `aud` the whole URL. */
  tokenOrigin: string;
  ca?: string | Buffer | Array<string | Buffer>;
  timeoutMs: number;
  clock: Clock;
  logger: Logger;
  /** Counted into as tokens are obtained. */
  onIssued: () => void;
}

/**
 * The access token in use: obtained with the JWT-bearer grant, reused for every send until
 * 5 minutes before it expires (or half its life, for a short-lived one), renewed by one
 * request at a time whatever the number of pushes waiting for it. A `401` invalidates it
 * once (`refused`), at most once a minute (docs/contract/android-fcm.md#fcm-access-token,
 * docs/contract/android-fcm.md#fcm-token-renewal, docs/contract/android-fcm.md#fcm-answers-detail).
 */
export class AccessToken {
  /** `authorization: Bearer <token>`, made once per token rather than per push. */
  private header: string | null = null;
  private renewAtMs = 0;
  /** A header a `401` invalidated: never sent again. */
  private invalidated: string | null = null;
  private lastForcedMs = Number.NEGATIVE_INFINITY;
  private renewing: Promise<Renewal> | null = null;
  private readonly audience: string;

  constructor(private readonly options: AccessTokenOptions) {
    this.audience = `${options.tokenOrigin}${TOKEN_PATH}`;
  }

  /** The `authorization` to send now, or null when the token must be renewed first (`renew`). */
  valid(): string | null {
    const header = this.header;
    return header !== null && header !== this.invalidated && this.options.clock.now() < this.renewAtMs ? header : null;
  }

  /** A new token (one request at a time: callers meanwhile share its answer). */
  renew(): Promise<Renewal> {
    if (this.renewing === null) {
      this.renewing = this.obtain();
      const done = () => void (this.renewing = null);
      this.renewing.then(done, done);
    }
    return this.renewing;
  }

  /**
   * FCM answered `401` to `used`. True when the push may be sent again (after `valid()` or
   * `renew()`): `used` was replaced meanwhile, or it is invalidated now. False when the
   * token in use was invalidated less than a minute ago already: the service refuses
   * fresh tokens too, and renewing again would not help.
   */
  refused(used: string): boolean {
    if (used !== this.header || used === this.invalidated) return true;
    const now = this.options.clock.now();
    if (now - this.lastForcedMs < FORCED_RENEWAL_MIN_MS) return false;
    this.lastForcedMs = now;
    this.invalidated = used;
    return true;
  }

  private async obtain(): Promise<Renewal> {
    const { account, clock, logger } = this.options;
    const startedAt = clock.now();
    const answer = await requestAccessToken({
      origin: this.options.tokenOrigin,
      ca: this.options.ca,
      assertion: signAssertion(account, this.audience, Math.floor(startedAt / 1000)),
      timeoutMs: this.options.timeoutMs,
      clock,
    });
    if (answer.kind === 'refused') {
      logger.error('fcm: the token endpoint refused the service account: check its key, its email and the clock', {
        status: answer.status,
        error: answer.error,
      });
      return answer;
    }
    if (answer.kind === 'failed') {
      logger.warn('fcm: no access token', { error: answer.error });
      return answer;
    }
    const lifeMs = answer.expiresInS * 1000;
    this.header = `Bearer ${answer.accessToken}`;
    // Counted from the request, not the answer: the token may be older than it looks.
    this.renewAtMs = startedAt + Math.max(lifeMs - RENEW_BEFORE_EXPIRY_MS, lifeMs / 2);
    this.options.onIssued();
    return { kind: 'ok', authorization: this.header };
  }
}
