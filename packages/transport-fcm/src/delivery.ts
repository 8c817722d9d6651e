import type { Clock, Logger, PushOutcome, PushReport } from '@tilecast/core';
import {
  answerFields,
  givenUp,
  isRetryable,
  RetryWaits,
  retryAfterMs,
  WITHDRAWN,
  retryDelayMs,
  type Connections,
  type PushAnswer,
  type Superseding,
} from '@tilecast/core/push';
import type { AccessToken } from './access-token.js';
import type { FcmCounters } from './counters.js';
import { aboutJob, type Job } from './job.js';
import { FCM_TTL_S } from './message.js';
import type { FcmRegistry } from './registry.js';
import { TOKEN_FIELD, type FcmRequest } from './request.js';

/**
 * What a push came to: its outcome, with the reason when it was given up (a dead letter's
 * reason: FCM's error code, e.g. `INVALID_ARGUMENT`, or why it was given up: `retries used up: UNAVAILABLE`).
 */
export type FcmResult = PushOutcome | PushReport;

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
  superseding: Superseding<Job>;
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
const DROPPED: Promise<FcmResult> = Promise.resolve({ outcome: 'dropped', reason: 'transport closed' });

/** An attempt that found no access token: the token endpoint refused the grant. */
const TOKEN_REFUSED = Symbol('token refused');

/**
 * Sends messages to FCM and resolves each with what came of it (docs/contract/android-fcm.md#fcm-answers):
 * `429` retried after its `Retry-After` or at least a minute, `5xx`, a lost stream, a
 * timeout or a failed token request retried with jittered backoff (honouring
 * `Retry-After`), at most MAX_RETRIES times and never past the message's TTL; the access
 * token renewed once on `401`; dead registration tokens removed; a push a newer one of its
 * key replaced gives way wherever it waits (docs/contract/android-fcm.md#fcm-latest-wins).
 * Every wait runs on the clock.
 */
export class Delivery {
  /** Pushes waiting to retry: ended early on close, or for a newer push. */
  private readonly waits: RetryWaits<Job>;
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

  /**
   * Sends `job` (stamped by the caller as the newest of its key); it expires with its TTL,
   * counted from now. The first attempt with the access token in use, and its `200`, take
   * one promise chain (one closure per push, no async frames: nearly every push of a
   * fan-out goes no further); any other answer, or a token to renew first, goes on in
   * `deliver`, as if it had started there.
   */
  send(job: Job): Promise<FcmResult> {
    job.expiresAtMs = this.clock.now() + FCM_TTL_S * 1000;
    const stop = this.stopBefore(job);
    if (stop !== undefined) return Promise.resolve(stop);
    const authorization = this.options.accessToken.valid();
    if (authorization === null) return this.deliver(job, undefined);
    return this.request(job, authorization).then((answer) => this.firstAnswer(job, answer));
  }

  /** A push handed over once the transport is closed, or still queued then: dropped without a look at the store. */
  dropClosed(): Promise<FcmResult> {
    this.counters.dropped += 1;
    return DROPPED;
  }

  /** Drops every push waiting to retry, at once, and every push to come. */
  close(): void {
    this.waits.close();
  }

  /**
   * A newer push of `older`'s key was handed over: a wait to retry ends at once (the push
   * gives way as it wakes). True when `older` is with the connections (waiting for a
   * stream, or for its answer): the newer push then goes ahead to take its place there.
   */
  giveWay(older: Job): boolean {
    return this.waits.endWait(older) ? false : older.requested;
  }

  /** Pushes waiting to retry. */
  get retrying(): number {
    return this.waits.size;
  }

  /** `send`'s first answer: a `200` settles here; anything else is handled by `deliver`. */
  private firstAnswer(job: Job, answer: PushAnswer): FcmResult | Promise<FcmResult> {
    job.requested = false;
    if (answer.kind === 'answer' && answer.status === 200) {
      this.counters.sent += 1;
      return 'delivered';
    }
    return this.deliver(job, answer);
  }

  /** Attempts until the push settles; `first`, when given, is the answer to the attempt `send` made. */
  private async deliver(job: Job, first: PushAnswer | undefined): Promise<FcmResult> {
    let retries = 0;
    let renewed = false;
    let given = first;
    for (;;) {
      let answer: PushAnswer | typeof TOKEN_REFUSED;
      if (given === undefined) {
        const stop = this.stopBefore(job);
        if (stop !== undefined) return stop;
        answer = await this.attempt(job);
      } else {
        answer = given;
        given = undefined;
      }
      if (answer === TOKEN_REFUSED) return this.drop(job, 'access token refused', undefined, 'refused');
      // A newer push of its key took its place in the stream queue: never sent.
      if (answer.kind === 'withdrawn') return this.superseded();
      if (answer.kind === 'answer' && answer.status === 200) {
        this.counters.sent += 1;
        return 'delivered';
      }
      if (answer.kind === 'answer' && REMOVE_TOKEN.has(`${answer.status} ${answer.reason}`)) return await this.removeToken(job, answer);
      // Closed meanwhile: whatever failed is not tried again.
      if (this.waits.closed) return this.drop(job, 'transport closed');
      if (answer.kind === 'answer' && answer.status === 401) {
        // Renewed once per push; `refused` invalidates a token once, whatever the number of 401s in flight.
        if (renewed || !this.options.accessToken.refused(job.authorization)) return this.unauthorized(job, renewed, answer);
        renewed = true;
        this.counters.retried += 1;
        continue;
      }
      if (!isRetryable(answer)) return this.drop(job, 'refused', answer, 'refused');
      if (answer.kind === 'timeout') this.counters.timeouts += 1;
      if (retries >= MAX_RETRIES) return this.drop(job, 'retries used up', answer);
      retries += 1;
      const delay = this.backoffMs(retries, answer);
      if (this.clock.now() + delay >= job.expiresAtMs) return this.drop(job, 'expired', answer);
      this.counters.retried += 1;
      // A push waiting to retry holds no slot: fresh pushes go on meanwhile.
      job.leave();
      if (!(await this.waits.wait(job, delay))) return this.drop(job, 'transport closed');
    }
  }

  private superseded(): FcmResult {
    this.counters.superseded += 1;
    return 'superseded';
  }

  /**
   * One attempt: the access token in use (renewed first when due: one request for all the
   * pushes waiting for it), then the send. A token request that failed is answered as a
   * lost request would be (retried).
   */
  private async attempt(job: Job): Promise<PushAnswer | typeof TOKEN_REFUSED> {
    const { accessToken } = this.options;
    let authorization = accessToken.valid();
    if (authorization === null) {
      const renewal = await accessToken.renew();
      if (renewal.kind === 'refused') return TOKEN_REFUSED;
      if (renewal.kind === 'failed') return { kind: 'network', error: `no access token: ${renewal.error}` };
      authorization = renewal.authorization;
      // A newer push of its key came while the token was being renewed: this one gives way.
      if (this.options.superseding.isSuperseded(job.key, job.seq)) return WITHDRAWN;
    }
    const answer = await this.request(job, authorization);
    job.requested = false;
    return answer;
  }

  /** Hands `job` to the connections with `authorization` (`job.requested` until its answer, which the caller unsets). */
  private request(job: Job, authorization: string): Promise<PushAnswer> {
    job.authorization = authorization;
    job.requested = true;
    return this.options.connections.request(this.options.origin, job, authorization);
  }

  /** Why the push must not be sent (again) now, if it must not. */
  private stopBefore(job: Job): FcmResult | undefined {
    if (this.waits.closed) return this.drop(job, 'transport closed');
    if (this.options.superseding.isSuperseded(job.key, job.seq)) return this.superseded();
    if (this.clock.now() >= job.expiresAtMs) return this.drop(job, 'expired');
    return undefined;
  }

  /** FCM says the registration token is dead: it is forgotten, unless the app registered another meanwhile. */
  private async removeToken(job: Job, answer: { status: number; reason: string | null }): Promise<FcmResult> {
    await this.options.registry.remove(job.deviceId, job.token);
    this.counters.tokensRemoved += 1;
    this.options.logger.info('fcm: registration token removed', { ...aboutJob(job), status: answer.status, reason: answer.reason });
    return 'token_removed';
  }

  /** A `401` on a renewed token, or on one invalidated less than a minute ago: the account cannot send. */
  private unauthorized(job: Job, renewed: boolean, answer: PushAnswer): FcmResult {
    this.options.logger.error('fcm: access token refused (401): check that the service account may send with Firebase Cloud Messaging', {
      ...aboutJob(job),
      renewed,
    });
    return this.drop(job, 'access token refused', answer, 'refused');
  }

  /**
   * Gives the push up, logged; `refused` when FCM refused it for good, else `dropped`, with
   * FCM's error code when it answered one (`INVALID_ARGUMENT`, `SENDER_ID_MISMATCH`...) after why.
   */
  private drop(job: Job, why: string, answer?: PushAnswer, outcome: 'dropped' | 'refused' = 'dropped'): PushReport {
    this.counters.dropped += 1;
    this.options.logger.warn(`fcm: push dropped (${why})`, { ...aboutJob(job), ...(answer === undefined ? {} : answerFields(answer)) });
    return givenUp(outcome, why, answer);
  }

  /** `429`: its `Retry-After`, or at least a minute; otherwise the backoff, after any `Retry-After`. */
  private backoffMs(retry: number, answer: PushAnswer): number {
    const told = answer.kind === 'answer' ? retryAfterMs(answer.retryAfter, this.clock.now()) : 0;
    const quota = answer.kind === 'answer' && answer.status === 429;
    return retryDelayMs(retry, this.options.retryBaseMs, quota && told === 0 ? QUOTA_WAIT_MS : told, this.options.random);
  }
}
