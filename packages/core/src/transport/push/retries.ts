import type { Clock } from '../../clock.js';
import type { PushAnswer } from './connection.js';
import type { PushCredential } from './credential.js';
import { isRetryable } from './report.js';
import { retryAfterMs, retryDelayMs } from './retry.js';

/**
 * How a transport tries a request again (docs/contract/apns.md#apns-retry,
 * docs/contract/android-fcm.md#fcm-answers): the same rules for per-token pushes
 * (`PushDelivery`) and for APNs's broadcasts and channel management.
 */
export interface RetryRules {
  /** `429`, `5xx`, lost streams and timeouts are retried at most this many times. */
  maxRetries: number;
  /** Base delay of the first retry (doubled for the second, jittered). */
  retryBaseMs: number;
  /** After `429` without a `retry-after`, the wait before the retry is at least this (0: the backoff alone). */
  quotaWaitMs: number;
  /** True when the answer refuses the credential as expired or invalid (APNs's `403 ExpiredProviderToken`, FCM's `401`). */
  refusesCredential(answer: { status: number; reason: string | null }): boolean;
  credential: PushCredential;
  clock: Clock;
  /** Source of the retry jitter, in [0, 1). */
  random: () => number;
}

/** Why a request is given up, as its report says it (`givenUp`'s `why`) but for the credential's. */
export type GiveUp = 'credential refused' | 'refused' | 'retries used up' | 'expired';

/** What comes after a failed attempt. */
export type RetryStep =
  /** The credential was renewed: try again at once. */
  | { kind: 'renewed' }
  /** Try again after `ms` (the transport's clock). */
  | { kind: 'wait'; ms: number }
  | { kind: 'give up'; why: GiveUp };

// The steps without a figure, one of each (this is the path of failures only, but a burst of them is many).
const RENEWED: RetryStep = Object.freeze({ kind: 'renewed' });
const giveUp = (why: GiveUp): RetryStep => Object.freeze({ kind: 'give up', why });
const CREDENTIAL_REFUSED = giveUp('credential refused');
const REFUSED = giveUp('refused');
const RETRIES_USED_UP = giveUp('retries used up');
const EXPIRED = giveUp('expired');

/** One request's retries: how many it made, and whether its credential was renewed (once per request at most). */
export class Retries {
  private retries = 0;
  private renewedOnce = false;

  constructor(private readonly rules: RetryRules) {}

  /** True once the credential was renewed for this request. */
  get renewed(): boolean {
    return this.renewedOnce;
  }

  /**
   * What comes after `answer` (a failure: not a `200`, not withdrawn) to an attempt sent
   * with `used`, for a request that must not be sent at or after `deadlineMs`.
   */
  next(answer: PushAnswer, used: string, deadlineMs: number): RetryStep {
    const { rules } = this;
    if (answer.kind === 'answer' && rules.refusesCredential(answer)) {
      // `refused` renews (or invalidates) a credential at most once, whatever the number of refusals in flight.
      if (this.renewedOnce || !rules.credential.refused(used)) return CREDENTIAL_REFUSED;
      this.renewedOnce = true;
      return RENEWED;
    }
    if (!isRetryable(answer)) return REFUSED;
    if (this.retries >= rules.maxRetries) return RETRIES_USED_UP;
    this.retries += 1;
    const ms = this.delayMs(answer);
    return rules.clock.now() + ms >= deadlineMs ? EXPIRED : { kind: 'wait', ms };
  }

  /** The backoff of this retry, after the service's `retry-after` (or the quota's wait, for a `429` without one). */
  private delayMs(answer: PushAnswer): number {
    const { rules } = this;
    let told = answer.kind === 'answer' ? retryAfterMs(answer.retryAfter, rules.clock.now()) : 0;
    if (told === 0 && answer.kind === 'answer' && answer.status === 429) told = rules.quotaWaitMs;
    return retryDelayMs(this.retries, rules.retryBaseMs, told, rules.random);
  }
}
