import type { Clock, Logger, PushOutcome, PushReport } from '@tilecast/core';
import {
  answerFields,
  givenUp,
  isRetryable,
  RetryWaits,
  retryAfterMs,
  retryDelayMs,
  type Connections,
  type PushAnswer,
  type Superseding,
} from '@tilecast/core/push';
import type { ApnsCounters } from './counters.js';
import { aboutJob, type Job } from './job.js';
import type { ProviderToken } from './provider-token.js';
import type { ApnsEnvironment, ApnsRegistry } from './registry.js';
import type { ApnsRequest } from './request.js';

/** What a push came to: its outcome, with the reason when it was given up (a dead letter's reason). */
export type ApnsResult = PushOutcome | PushReport;

/** A push may be delivered up to an hour after it was handed over (`apns-expiration`). */
export const APNS_EXPIRATION_S = 3600;
/** `429` and `5xx` (and lost streams) are retried at most this many times. */
export const MAX_RETRIES = 2;

export interface DeliveryOptions {
  connections: Connections<ApnsRequest>;
  /** The origin a device's environment is sent to. */
  originOf: (environment: ApnsEnvironment) => string;
  provider: ProviderToken;
  /** Where dead tokens are removed, and an ended activity's update token forgotten. */
  registry: Pick<ApnsRegistry, 'removeToken' | 'forgetActivityToken'>;
  superseding: Superseding<Job>;
  /** Counted into as pushes go (the transport's own counters). */
  counters: ApnsCounters;
  /** Base delay of the first retry (doubled for the second, jittered). */
  retryBaseMs: number;
  clock: Clock;
  logger: Logger;
  /** Source of the retry jitter, in [0, 1). */
  random: () => number;
}

const REMOVE_TOKEN: ReadonlySet<string> = new Set(['410 Unregistered', '400 BadDeviceToken', '400 DeviceTokenNotForTopic']);

/** The answer of every push dropped because the transport is closed (one shared promise). */
const DROPPED: Promise<ApnsResult> = Promise.resolve({ outcome: 'dropped', reason: 'transport closed' });

/**
 * Sends pushes to APNs and resolves each with what came of it: retried with backoff on
 * `429`, `5xx`, a lost stream or a timeout (at most MAX_RETRIES times, honouring
 * `retry-after`, never past the push's expiration), renewing the provider token once on
 * `403 ExpiredProviderToken`, removing dead tokens. Every wait runs on the clock.
 */
export class Delivery {
  /** Pushes waiting to retry: ended early on close, or for a newer push. */
  private readonly waits: RetryWaits<Job>;
  private readonly counters: ApnsCounters;
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
   * Sends `job` (stamped by the caller as the newest of its key), its expiration fixed now.
   * The first attempt, and its `200` (but an `end`'s, which forgets the activity's token),
   * take one promise chain (one closure per push, no async frame: nearly every push of a
   * fan-out goes no further); any other answer goes on in `deliver`, as if it had started there.
   */
  send(job: Job): Promise<ApnsResult> {
    const expiration = Math.floor(this.clock.now() / 1000) + APNS_EXPIRATION_S;
    job.expiration = expiration;
    job.expiresAtMs = expiration * 1000;
    const stop = this.stopBefore(job);
    if (stop !== undefined) return Promise.resolve(stop);
    const bearer = this.bearer();
    return this.request(job).then((answer) => this.firstAnswer(job, bearer, answer));
  }

  /** A push handed over once the transport is closed, or still queued then: dropped without a look at the store. */
  dropClosed(): Promise<ApnsResult> {
    this.counters.dropped += 1;
    return DROPPED;
  }

  /** Drops every push waiting to retry, at once, and every push to come. */
  close(): void {
    this.waits.close();
  }

  /**
   * A newer push of `older`'s key was handed over (docs/contract/apns.md#apns-latest-wins).
   * A wait to retry ends at once: the push gives way as it wakes. Answers true when `older`
   * is with the connections (waiting for a stream, or for its answer): the newer push is
   * then to go ahead of the admission queue and take `older`'s place in the stream queue
   * (docs/decisions/0111-apns-latest-wins.md).
   */
  giveWay(older: Job): boolean {
    return this.waits.endWait(older) ? false : older.requested;
  }

  /** Pushes waiting to retry. */
  get retrying(): number {
    return this.waits.size;
  }

  /** `send`'s first answer: a `200` settles here (but an `end`'s); anything else is handled by `deliver`. */
  private firstAnswer(job: Job, bearer: string, answer: PushAnswer): ApnsResult | Promise<ApnsResult> {
    job.requested = false;
    if (answer.kind === 'answer' && answer.status === 200 && job.what !== 'end') {
      this.counters.sent += 1;
      return 'delivered';
    }
    return this.deliver(job, { bearer, answer });
  }

  /** The provider token to send now (the counters follow its renewals). */
  private bearer(): string {
    const { provider } = this.options;
    const bearer = provider.current();
    this.counters.providerTokens = provider.issued;
    return bearer;
  }

  /** Hands `job` to the connections with the provider token `bearer` returned last (`job.requested` until its answer, which the caller unsets). */
  private request(job: Job): Promise<PushAnswer> {
    job.requested = true;
    return this.options.connections.request(this.options.originOf(job.environment), job, this.options.provider.authorization());
  }

  /** Attempts until the push settles; `first`, when given, is the attempt `send` made (its token and answer). */
  private async deliver(job: Job, first: { bearer: string; answer: PushAnswer } | undefined): Promise<ApnsResult> {
    const { provider } = this.options;
    let retries = 0;
    let renewed = false;
    let given = first;
    for (;;) {
      let bearer: string;
      let answer: PushAnswer;
      if (given === undefined) {
        const stop = this.stopBefore(job);
        if (stop !== undefined) return stop;
        bearer = this.bearer();
        answer = await this.request(job);
        job.requested = false;
      } else {
        ({ bearer, answer } = given);
        given = undefined;
      }
      // A newer push of its key took its place in the stream queue: never sent.
      if (answer.kind === 'withdrawn') return this.superseded();
      if (answer.kind === 'answer' && answer.status === 200) {
        this.counters.sent += 1;
        // Once an `end` is sent, the activity's update token is of no more use.
        await (job.what === 'end' ? this.options.registry.forgetActivityToken(job.deviceId, job.owner, job.slug, job.token) : undefined);
        return 'delivered';
      }
      if (answer.kind === 'answer' && REMOVE_TOKEN.has(`${answer.status} ${answer.reason}`)) return await this.removeToken(job, answer);
      if (answer.kind === 'answer' && answer.status === 403 && answer.reason === 'ExpiredProviderToken') {
        // Renewed once per push; `refused` renews at most once per token and never
        // inside Apple's 20 minutes, whatever the number of 403s in flight.
        if (renewed || !provider.refused(bearer)) return this.providerTokenRefused(job, renewed);
        renewed = true;
        this.counters.providerTokens = provider.issued;
        this.counters.retried += 1;
        continue;
      }
      if (!isRetryable(answer)) return this.refused(job, answer);
      if (answer.kind === 'timeout') this.counters.timeouts += 1;
      if (retries >= MAX_RETRIES) return this.drop(job, 'retries used up', answer);
      retries += 1;
      const delay = this.backoffMs(retries, answer.kind === 'answer' ? answer.retryAfter : null);
      if (this.clock.now() + delay >= job.expiresAtMs) return this.drop(job, 'expired', answer);
      this.counters.retried += 1;
      // A push waiting to retry holds no slot: fresh pushes go on meanwhile.
      job.leave();
      if (!(await this.waits.wait(job, delay))) return this.drop(job, 'transport closed');
    }
  }

  private superseded(): ApnsResult {
    this.counters.superseded += 1;
    return 'superseded';
  }

  /** Why the push must not be sent (again) now, if it must not. */
  private stopBefore(job: Job): ApnsResult | undefined {
    if (this.waits.closed) return this.drop(job, 'transport closed');
    if (this.options.superseding.isSuperseded(job.key, job.seq)) return this.superseded();
    if (this.clock.now() >= job.expiresAtMs) return this.drop(job, 'expired');
    return undefined;
  }

  /** APNs says the device token is dead: it is removed wherever the device registered it. */
  private async removeToken(job: Job, answer: { status: number; reason: string | null }): Promise<ApnsResult> {
    await this.options.registry.removeToken(job.deviceId, job.token);
    this.counters.tokensRemoved += 1;
    this.options.logger.info('apns: device token removed', { ...aboutJob(job), status: answer.status, reason: answer.reason });
    return 'token_removed';
  }

  /** A fresh (or already renewed) token refused as expired: a clock or key problem, not retried. */
  private providerTokenRefused(job: Job, renewed: boolean): ApnsResult {
    this.options.logger.error('apns: provider token refused as expired', { ...aboutJob(job), renewed });
    return this.drop(job, 'provider token refused', undefined, 'refused');
  }

  /** A refusal that another attempt would not change (a `4xx` other than the ones handled). */
  private refused(job: Job, answer: PushAnswer): ApnsResult {
    if (answer.kind === 'answer' && answer.status === 403) {
      this.options.logger.error('apns: request refused: check the team id, key id, key and bundle id', { ...aboutJob(job), ...answerFields(answer) });
    }
    return this.drop(job, 'refused', answer, 'refused');
  }

  /**
   * Gives the push up, logged; `refused` when APNs refused it for good, else `dropped`, with
   * APNs's own reason when it answered one (`BadTopic`, `PayloadTooLarge`...) after why.
   */
  private drop(job: Job, why: string, answer?: PushAnswer, outcome: 'dropped' | 'refused' = 'dropped'): PushReport {
    this.counters.dropped += 1;
    this.options.logger.warn(`apns: push dropped (${why})`, { ...aboutJob(job), ...(answer === undefined ? {} : answerFields(answer)) });
    return givenUp(outcome, why, answer);
  }

  private backoffMs(retry: number, retryAfter: string | null): number {
    return retryDelayMs(retry, this.options.retryBaseMs, retryAfterMs(retryAfter, this.clock.now()), this.options.random);
  }
}
