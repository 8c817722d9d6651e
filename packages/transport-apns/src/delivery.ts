import type { Clock, Logger, PushOutcome, PushReport } from '@tilecast/core';

/** What a push came to: its outcome, with the reason when it was given up (a dead letter's reason). */
export type ApnsResult = PushOutcome | PushReport;

/** The outcome alone. */
export const outcomeName = (result: ApnsResult): PushOutcome => (typeof result === 'string' ? result : result.outcome);
import type { ApnsAnswer } from './connection.js';
import type { Connections } from './connection-pool.js';
import type { ApnsCounters } from './counters.js';
import { aboutJob, type Job } from './job.js';
import type { ProviderToken } from './provider-token.js';
import type { ApnsEnvironment, ApnsRegistry } from './registry.js';
import type { Superseding } from './superseding.js';

/** A push may be delivered up to an hour after it was handed over (`apns-expiration`). */
export const APNS_EXPIRATION_S = 3600;
/** `429` and `5xx` (and lost streams) are retried at most this many times. */
export const MAX_RETRIES = 2;

export interface DeliveryOptions {
  connections: Connections;
  /** The origin a device's environment is sent to. */
  originOf: (environment: ApnsEnvironment) => string;
  provider: ProviderToken;
  /** Where dead tokens are removed, and an ended activity's update token forgotten. */
  registry: Pick<ApnsRegistry, 'removeToken' | 'forgetActivityToken'>;
  superseding: Superseding;
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
  private isClosed = false;
  /** Pushes waiting to retry: their timer, and how to end the wait early (on close, or for a newer push). */
  private readonly sleeping = new Map<Job, Sleeper>();
  private readonly counters: ApnsCounters;
  private readonly clock: Clock;

  constructor(private readonly options: DeliveryOptions) {
    this.counters = options.counters;
    this.clock = options.clock;
  }

  /** True once `close` was called: every push from then on is dropped. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Sends `job` (stamped by the caller as the newest of its key), its expiration fixed now. */
  send(job: Job): Promise<ApnsResult> {
    const expiration = Math.floor(this.clock.now() / 1000) + APNS_EXPIRATION_S;
    job.expiration = expiration;
    job.expiresAtMs = expiration * 1000;
    return this.deliver(job);
  }

  /** A push handed over once the transport is closed, or still queued then: dropped without a look at the store. */
  dropClosed(): Promise<ApnsResult> {
    this.counters.dropped += 1;
    return DROPPED;
  }

  /** Drops every push waiting to retry, at once, and every push to come. */
  close(): void {
    this.isClosed = true;
    for (const { handle, wake } of this.sleeping.values()) {
      this.clock.clearTimeout(handle);
      wake(false);
    }
    this.sleeping.clear();
  }

  /**
   * A newer push of `older`'s key was handed over (docs/contract/apns.md#apns-latest-wins).
   * A wait to retry ends at once: the push gives way as it wakes. Answers true when `older`
   * is with the connections (waiting for a stream, or for its answer): the newer push is
   * then to go ahead of the admission queue and take `older`'s place in the stream queue
   * (docs/decisions/0111-apns-latest-wins.md).
   */
  giveWay(older: Job): boolean {
    const sleeper = this.sleeping.get(older);
    if (sleeper !== undefined) {
      this.sleeping.delete(older);
      this.clock.clearTimeout(sleeper.handle);
      sleeper.wake(true);
      return false;
    }
    return older.requested;
  }

  /** Pushes waiting to retry. */
  get retrying(): number {
    return this.sleeping.size;
  }

  private async deliver(job: Job): Promise<ApnsResult> {
    const { connections, provider } = this.options;
    let retries = 0;
    let renewed = false;
    for (;;) {
      const stop = this.stopBefore(job);
      if (stop !== undefined) return stop;
      const bearer = provider.current();
      this.counters.providerTokens = provider.issued;
      job.requested = true;
      const answer: ApnsAnswer = await connections.request(this.options.originOf(job.environment), job, provider.authorization());
      job.requested = false;
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
      const fields = answerFields(answer);
      if (!isRetryable(answer)) return this.refused(job, answer, fields);
      if (answer.kind === 'timeout') this.counters.timeouts += 1;
      if (retries >= MAX_RETRIES) return this.drop(job, 'retries used up', fields);
      retries += 1;
      const delay = this.backoffMs(retries, answer.kind === 'answer' ? answer.retryAfter : null);
      if (this.clock.now() + delay >= job.expiresAtMs) return this.drop(job, 'expired', fields);
      this.counters.retried += 1;
      // A push waiting to retry holds no slot: fresh pushes go on meanwhile.
      job.leave();
      if (!(await this.sleep(job, delay))) return this.drop(job, 'transport closed');
    }
  }

  private superseded(): ApnsResult {
    this.counters.superseded += 1;
    return 'superseded';
  }

  /** Why the push must not be sent (again) now, if it must not. */
  private stopBefore(job: Job): ApnsResult | undefined {
    if (this.isClosed) return this.drop(job, 'transport closed');
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
    return this.drop(job, 'provider token refused', {}, 'refused');
  }

  /** A refusal that another attempt would not change (a `4xx` other than the ones handled). */
  private refused(job: Job, answer: ApnsAnswer, fields: Record<string, unknown>): ApnsResult {
    if (answer.kind === 'answer' && answer.status === 403) {
      this.options.logger.error('apns: request refused: check the team id, key id, key and bundle id', { ...aboutJob(job), ...fields });
    }
    return this.drop(job, 'refused', fields, 'refused');
  }

  /** Gives the push up, logged; `refused` when APNs refused it for good, else `dropped`. */
  private drop(job: Job, why: string, fields: Record<string, unknown> = {}, outcome: 'dropped' | 'refused' = 'dropped'): PushReport {
    this.counters.dropped += 1;
    this.options.logger.warn(`apns: push dropped (${why})`, { ...aboutJob(job), ...fields });
    // APNs's own reason when it answered one (`BadTopic`, `PayloadTooLarge`...), else why it was given up.
    const told = typeof fields.reason === 'string' ? fields.reason : typeof fields.status === 'number' ? `status ${fields.status}` : null;
    return { outcome, reason: told === null ? why : `${why}: ${told}` };
  }

  private backoffMs(retry: number, retryAfter: string | null): number {
    // Full-jitter in [base/2, base); after a `retry-after`, never sooner than told and
    // spread over the half-base that follows so that many devices do not come back at once.
    const { retryBaseMs, random } = this.options;
    const base = retryBaseMs * 2 ** (retry - 1);
    const told = retryAfterMs(retryAfter, this.clock.now());
    return told > 0 ? told + (random() * base) / 2 : base / 2 + (random() * base) / 2;
  }

  /** True after `ms` on the clock, or at once for a newer push (`giveWay`); false at once, or as soon as the transport closes. */
  private sleep(job: Job, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.isClosed) return resolve(false);
      const handle = this.clock.setTimeout(() => {
        this.sleeping.delete(job);
        resolve(true);
      }, ms);
      this.sleeping.set(job, { handle, wake: resolve });
    });
  }
}

/** A push waiting to retry: its timer, and what ends the wait (true: go on; false: the transport closed). */
interface Sleeper {
  handle: unknown;
  wake: (goOn: boolean) => void;
}

/** `429`, `5xx`, a lost stream and a timeout may go through on another attempt. */
const isRetryable = (answer: ApnsAnswer): boolean => answer.kind !== 'answer' || answer.status === 429 || answer.status >= 500;

/** What the logs say about a failed attempt. */
const answerFields = (answer: ApnsAnswer): Record<string, unknown> =>
  answer.kind === 'answer' ? { status: answer.status, reason: answer.reason } : { error: answer.kind === 'network' ? answer.error : 'timeout' };

/** `retry-after` in seconds or as an HTTP date, in milliseconds from now (0 when absent or bad). */
export function retryAfterMs(header: string | null, now: number): number {
  if (header === null) return 0;
  const trimmed = header.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isFinite(date) ? Math.max(0, date - now) : 0;
}
