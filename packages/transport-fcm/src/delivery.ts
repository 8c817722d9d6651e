import type { Clock, Logger, PushOutcome } from '@tilecast/core';
import { RetryWaits, retryAfterMs, retryDelayMs, type Connections, type PushAnswer, type Superseding } from '@tilecast/core/push';
import type { AccessToken } from './access-token.js';
import type { FcmCounters } from './counters.js';
import { aboutJob, type Job } from './job.js';
import { FCM_TTL_S } from './message.js';
import type { FcmRegistry } from './registry.js';
import { TOKEN_FIELD, type FcmRequest } from './request.js';

/** `429`, `5xx`, lost streams and failed token requests are retried at most this many times. */
export const MAX_RETRIES = 2;
/** After `429` without a `Retry-After`, the wait before the retry is at least this. */
export const QUOTA_WAIT_MS = 60_000;

export interface DeliveryOptions {
  connections: Connections<FcmRequest>;
  /** The send host's origin. */
  origin: string;
  accessToken: AccessToken;
  /** Where refused registration tokens are removed. */
  registry: Pick<FcmRegistry, 'remove'>;
  superseding: Superseding;
  /** Counted into as pushes go (the transport's own counters). */
  counters: FcmCounters;
  /** Base delay of the first retry (doubled for the second, jittered). */
  retryBaseMs: number;
  clock: Clock;
  logger: Logger;
  /** Source of the retry jitter, in [0, 1). */
  random: () => number;
}

/** The answers that say the registration token is dead (docs/contract/android-fcm.md#fcm-answers, docs/contract/android-fcm.md#fcm-answers-detail). */
const REMOVE_TOKEN: ReadonlySet<string> = new Set(['404 UNREGISTERED', `400 INVALID_ARGUMENT ${TOKEN_FIELD}`]);

/** The answer of every push dropped because the transport is closed (one shared promise). */
const DROPPED: Promise<PushOutcome> = Promise.resolve('dropped');

/** An attempt that found no access token: the token endpoint refused the grant. */
const TOKEN_REFUSED = Symbol('token refused');

/**
 * Sends messages to FCM and resolves each with what came of it (docs/contract/android-fcm.md#fcm-answers):
 * `429` retried after its `Retry-After` or at least a minute, `5xx`, a lost stream, a
 * timeout or a failed token request retried with jittered backoff (honouring
 * `Retry-After`), at most MAX_RETRIES times and never past the message's TTL; the access
 * token renewed once on `401`; dead registration tokens removed. Every wait runs on the clock.
 */
export class Delivery {
  private readonly waits: RetryWaits;
  private readonly counters: FcmCounters;
  private readonly clock: Clock;

  constructor(private readonly options: DeliveryOptions) {
    this.counters = options.counters;
    this.clock = options.clock;
    this.waits = new RetryWaits(options.clock);
  }

  /** True once `close` was called: every push from then on is dropped. */
  get closed(): boolean {
    return this.waits.closed;
  }

  /** Sends `job` (stamped by the caller as the newest of its key); it expires with its TTL, counted from now. */
  send(job: Job): Promise<PushOutcome> {
    job.expiresAtMs = this.clock.now() + FCM_TTL_S * 1000;
    return this.deliver(job);
  }

  /** A push handed over once the transport is closed, or still queued then: dropped without a look at the store. */
  dropClosed(): Promise<PushOutcome> {
    this.counters.dropped += 1;
    return DROPPED;
  }

  /** Drops every push waiting to retry, at once, and every push to come. */
  close(): void {
    this.waits.close();
  }

  private async deliver(job: Job): Promise<PushOutcome> {
    let retries = 0;
    let renewed = false;
    try {
      for (;;) {
        const stop = this.stopBefore(job);
        if (stop !== undefined) return stop;
        const answer = await this.attempt(job);
        if (answer === TOKEN_REFUSED) return this.drop(job, 'access token refused', {}, 'refused');
        if (answer.kind === 'answer' && answer.status === 200) {
          this.counters.sent += 1;
          return 'delivered';
        }
        if (answer.kind === 'answer' && REMOVE_TOKEN.has(`${answer.status} ${answer.reason}`)) return await this.removeToken(job, answer);
        // Closed meanwhile: whatever failed is not tried again.
        if (this.waits.closed) return this.drop(job, 'transport closed');
        if (answer.kind === 'answer' && answer.status === 401) {
          // Renewed once per push; `refused` invalidates a token once, whatever the number of 401s in flight.
          if (renewed || !this.options.accessToken.refused(job.authorization)) return this.unauthorized(job, renewed);
          renewed = true;
          this.counters.retried += 1;
          continue;
        }
        const fields = answerFields(answer);
        if (!isRetryable(answer)) return this.drop(job, 'refused', fields, 'refused');
        if (answer.kind === 'timeout') this.counters.timeouts += 1;
        if (retries >= MAX_RETRIES) return this.drop(job, 'retries used up', fields);
        retries += 1;
        const delay = this.backoffMs(retries, answer);
        if (this.clock.now() + delay >= job.expiresAtMs) return this.drop(job, 'expired', fields);
        this.counters.retried += 1;
        // A push waiting to retry holds no slot: fresh pushes go on meanwhile.
        job.leave();
        if (!(await this.waits.wait(delay))) return this.drop(job, 'transport closed');
      }
    } finally {
      this.options.superseding.settle(job);
    }
  }

  /**
   * One attempt: the access token in use (renewed first when due: one request for all the
   * pushes waiting for it), then the send. A token request that failed is answered as a
   * lost request would be (retried).
   */
  private async attempt(job: Job): Promise<PushAnswer | typeof TOKEN_REFUSED> {
    const { accessToken, connections, origin } = this.options;
    let authorization = accessToken.valid();
    if (authorization === null) {
      const renewal = await accessToken.renew();
      if (renewal.kind === 'refused') return TOKEN_REFUSED;
      if (renewal.kind === 'failed') return { kind: 'network', error: `no access token: ${renewal.error}` };
      authorization = renewal.authorization;
    }
    job.authorization = authorization;
    return connections.request(origin, job, authorization);
  }

  /** Why the push must not be sent (again) now, if it must not. */
  private stopBefore(job: Job): PushOutcome | undefined {
    if (this.waits.closed) return this.drop(job, 'transport closed');
    if (this.options.superseding.isSuperseded(job)) {
      this.counters.superseded += 1;
      return 'superseded';
    }
    if (this.clock.now() >= job.expiresAtMs) return this.drop(job, 'expired');
    return undefined;
  }

  /** FCM says the registration token is dead: it is forgotten, unless the app registered another meanwhile. */
  private async removeToken(job: Job, answer: { status: number; reason: string | null }): Promise<PushOutcome> {
    await this.options.registry.remove(job.deviceId, job.token);
    this.counters.tokensRemoved += 1;
    this.options.logger.info('fcm: registration token removed', { ...aboutJob(job), status: answer.status, reason: answer.reason });
    return 'token_removed';
  }

  /** A `401` on a renewed token, or on one invalidated less than a minute ago: the account cannot send. */
  private unauthorized(job: Job, renewed: boolean): PushOutcome {
    this.options.logger.error('fcm: access token refused (401): check that the service account may send with Firebase Cloud Messaging', {
      ...aboutJob(job),
      renewed,
    });
    return this.drop(job, 'access token refused', { status: 401 }, 'refused');
  }

  /** Gives the push up, logged; `refused` when FCM refused it for good, else `dropped`. */
  private drop(job: Job, why: string, fields: Record<string, unknown> = {}, outcome: 'dropped' | 'refused' = 'dropped'): PushOutcome {
    this.counters.dropped += 1;
    this.options.logger.warn(`fcm: push dropped (${why})`, { ...aboutJob(job), ...fields });
    return outcome;
  }

  /** `429`: its `Retry-After`, or at least a minute; otherwise the backoff, after any `Retry-After`. */
  private backoffMs(retry: number, answer: PushAnswer): number {
    const told = answer.kind === 'answer' ? retryAfterMs(answer.retryAfter, this.clock.now()) : 0;
    const quota = answer.kind === 'answer' && answer.status === 429;
    return retryDelayMs(retry, this.options.retryBaseMs, quota && told === 0 ? QUOTA_WAIT_MS : told, this.options.random);
  }
}

/** `429`, `5xx`, a lost stream, a timeout and a failed token request may go through on another attempt. */
const isRetryable = (answer: PushAnswer): boolean => answer.kind !== 'answer' || answer.status === 429 || answer.status >= 500;

/** What the logs say about a failed attempt. */
const answerFields = (answer: PushAnswer): Record<string, unknown> =>
  answer.kind === 'answer' ? { status: answer.status, reason: answer.reason } : { error: answer.kind === 'network' ? answer.error : 'timeout' };
