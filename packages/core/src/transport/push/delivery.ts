import type { Clock } from '../../clock.js';
import type { Logger } from '../../logger.js';
import type { PushOutcome, PushReport } from '../device-transport.js';
import type { Connections } from './connection-pool.js';
import { WITHDRAWN, type PushAnswer } from './connection.js';
import type { PushCounters } from './counters.js';
import type { PushCredential } from './credential.js';
import { answerFields, givenUp } from './report.js';
import type { PushRequest } from './request-format.js';
import { Retries, type GiveUp, type RetryRules } from './retries.js';
import { RetryWaits } from './retry-waits.js';
import type { Superseding, SupersedingJob } from './superseding.js';

/** What a push came to: its outcome, with the reason when it was given up (a dead letter's reason). */
export type DeliveryResult = PushOutcome | PushReport;

/** A push at work as the delivery loop sees it: the transport's job, one object per push, which is also its request. */
export interface PushJob extends PushRequest, SupersedingJob {
  /** When it may no longer be sent (epoch ms), fixed by `DeliveryRules.sending`. */
  expiresAtMs: number;
  /** True while the connections have it (waiting for a stream, or for the answer). */
  requested: boolean;
  /** Gives up the push's admission slot (before it waits to retry, and when it is done). */
  leave: () => void;
}

/**
 * What makes one transport's delivery its own: its service's answers and its registry.
 * A table of data and small hooks; the loop (`PushDelivery`) is the same for every service.
 */
export interface DeliveryRules<J extends PushJob> extends Pick<RetryRules, 'maxRetries' | 'quotaWaitMs' | 'refusesCredential'> {
  /** What the logs start with: `apns`, `fcm`. */
  name: string;
  /** What the credential is called in reports and logs: `provider token` (`provider token refused`), `access token`. */
  credentialName: string;
  /** What a device's token is called in the logs: `device token`, `registration token`. */
  tokenName: string;
  /** The answers (`<status> <reason>`) that say the device's token is dead: it is removed, never retried. */
  deadTokens: ReadonlySet<string>;
  /**
   * A failure answered once the transport is closed is given up at once (`transport
   * closed`) rather than judged: FCM's rule. APNs judges it as any other (a refusal stays
   * a refusal; a retry finds the transport closed as it starts to wait).
   */
  closedEndsFailures: boolean;
  /**
   * The push is handed to the loop at `now`: fixes its expiry (`expiresAtMs`, and whatever
   * the request sends of it), and counts what the transport counts of the pushes it sends.
   */
  sending(job: J, now: number): void;
  /** The origin the push is sent to. */
  originOf(job: J): string;
  /** What must follow a `200` before the push counts as delivered, if anything (APNs: an end forgets the activity's update token). */
  afterDelivered(job: J): Promise<unknown> | undefined;
  /** Removes the push's dead token wherever the device registered it. */
  removeToken(job: J): Promise<unknown>;
  /** What the logs say about a push (never a token). */
  about(job: J): Record<string, unknown>;
  /**
   * The credential was refused again (once renewed for this push, or too young to renew):
   * logs what to check; answers the answer the push's report names, if it names one.
   */
  credentialRefused(job: J, renewed: boolean, answer: PushAnswer): PushAnswer | undefined;
  /** A refusal for good (a `4xx` not handled above): logs what to check, if there is anything to say. */
  refused?(job: J, answer: PushAnswer): void;
}

export interface PushDeliveryOptions<J extends PushJob> {
  connections: Connections<J>;
  credential: PushCredential;
  superseding: Superseding<J>;
  /** Counted into as pushes go (the transport's own counters). */
  counters: PushCounters;
  rules: DeliveryRules<J>;
  /** Base delay of the first retry (doubled for the second, jittered). */
  retryBaseMs: number;
  clock: Clock;
  logger: Logger;
  /** Source of the retry jitter, in [0, 1). */
  random: () => number;
}

/** One attempt: the `authorization` it was sent with, and what it came to. */
interface Attempt {
  authorization: string;
  answer: PushAnswer;
}

/** The answer of every push dropped because the transport is closed (one shared promise). */
const DROPPED: Promise<DeliveryResult> = Promise.resolve({ outcome: 'dropped', reason: 'transport closed' });

const delivered = (): DeliveryResult => 'delivered';

/**
 * Sends a transport's pushes and resolves each with what came of it: retried with backoff
 * on `429`, `5xx`, a lost stream or a timeout (at most `maxRetries` times, honouring
 * `retry-after`, never past the push's expiry), the credential renewed once per push when
 * the service refuses it, dead tokens removed, a push a newer one of its key replaced
 * giving way wherever it waits (docs/contract/apns.md#apns-latest-wins,
 * docs/contract/android-fcm.md#fcm-latest-wins). Every wait runs on the clock. What differs
 * between services is in `DeliveryRules`.
 */
export class PushDelivery<J extends PushJob> {
  /** Pushes waiting to retry: ended early on close, or for a newer push. */
  private readonly waits: RetryWaits<J>;
  private readonly counters: PushCounters;
  private readonly clock: Clock;
  private readonly credential: PushCredential;
  private readonly rules: DeliveryRules<J>;
  private readonly retryRules: RetryRules;

  constructor(private readonly options: PushDeliveryOptions<J>) {
    const { rules, credential, clock } = options;
    this.counters = options.counters;
    this.clock = clock;
    this.credential = credential;
    this.rules = rules;
    this.waits = new RetryWaits(clock);
    const { maxRetries, quotaWaitMs, refusesCredential } = rules;
    this.retryRules = { maxRetries, quotaWaitMs, refusesCredential, credential, retryBaseMs: options.retryBaseMs, clock, random: options.random };
  }

  /** True once `close` was called: every push from then on is dropped. */
  get closed(): boolean {
    return this.waits.closed;
  }

  /**
   * Sends `job` (stamped by the caller as the newest of its key), its expiry fixed now.
   * The first attempt with the credential in use, and its `200`, take one promise chain
   * (one closure per push, no async frame: nearly every push of a fan-out goes no
   * further); any other answer, or a credential to renew first, goes on in `deliver`, as
   * if it had started there.
   */
  send(job: J): Promise<DeliveryResult> {
    this.rules.sending(job, this.clock.now());
    const stop = this.stopBefore(job);
    if (stop !== undefined) return Promise.resolve(stop);
    const authorization = this.credential.valid();
    if (authorization === null) return this.deliver(job, undefined);
    return this.request(job, authorization).then((answer) => this.firstAnswer(job, authorization, answer));
  }

  /** A push handed over once the transport is closed, or still queued then: dropped without a look at the store. */
  dropClosed(): Promise<DeliveryResult> {
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
   * stream, or for its answer): the newer push is then to go ahead of the admission queue
   * and take `older`'s place in the stream queue (docs/decisions/0111-apns-latest-wins.md).
   */
  giveWay(older: J): boolean {
    return this.waits.endWait(older) ? false : older.requested;
  }

  /** Pushes waiting to retry. */
  get retrying(): number {
    return this.waits.size;
  }

  /** `send`'s first answer: a `200` settles here; anything else is handled by `deliver`. */
  private firstAnswer(job: J, authorization: string, answer: PushAnswer): DeliveryResult | Promise<DeliveryResult> {
    job.requested = false;
    if (answer.kind === 'answer' && answer.status === 200) return this.delivered(job);
    return this.deliver(job, { authorization, answer });
  }

  /** Attempts until the push settles; `first`, when given, is the attempt `send` made. */
  private async deliver(job: J, first: Attempt | undefined): Promise<DeliveryResult> {
    const retries = new Retries(this.retryRules);
    let attempt = first;
    for (;;) {
      if (attempt === undefined) {
        const stop = this.stopBefore(job);
        if (stop !== undefined) return stop;
        const made = await this.attempt(job);
        if (made === null) return this.drop(job, `${this.rules.credentialName} refused`, undefined, 'refused');
        attempt = made;
      }
      const { authorization, answer } = attempt;
      attempt = undefined;
      // A newer push of its key took its place in the stream queue: never sent.
      if (answer.kind === 'withdrawn') return this.superseded();
      if (answer.kind === 'answer' && answer.status === 200) return this.delivered(job);
      if (answer.kind === 'answer' && this.rules.deadTokens.has(`${answer.status} ${answer.reason}`)) return this.removeToken(job, answer);
      if (this.rules.closedEndsFailures && this.waits.closed) return this.drop(job, 'transport closed');
      if (answer.kind === 'timeout') this.counters.timeouts += 1;
      const step = retries.next(answer, authorization, job.expiresAtMs);
      if (step.kind === 'give up') return this.giveUp(job, step.why, answer, retries.renewed);
      this.counters.retried += 1;
      if (step.kind === 'renewed') continue;
      // A push waiting to retry holds no slot: fresh pushes go on meanwhile.
      job.leave();
      if (!(await this.waits.wait(job, step.ms))) return this.drop(job, 'transport closed');
    }
  }

  /**
   * One attempt: the credential in use (renewed first when due: one renewal for all the
   * pushes waiting for it), then the request. Null when the issuer refused the credential;
   * a renewal that failed is answered as a lost request would be (retried).
   */
  private async attempt(job: J): Promise<Attempt | null> {
    let authorization = this.credential.valid();
    if (authorization === null) {
      const renewal = await this.credential.renew();
      if (renewal.kind === 'refused') return null;
      if (renewal.kind === 'failed') return { authorization: '', answer: { kind: 'network', error: `no ${this.rules.credentialName}: ${renewal.error}` } };
      authorization = renewal.authorization;
      // A newer push of its key came while the credential was being renewed: this one gives way.
      if (this.options.superseding.isSuperseded(job.key, job.seq)) return { authorization, answer: WITHDRAWN };
    }
    const answer = await this.request(job, authorization);
    job.requested = false;
    return { authorization, answer };
  }

  /** Hands `job` to the connections with `authorization` (`job.requested` until its answer, which the caller unsets). */
  private request(job: J, authorization: string): Promise<PushAnswer> {
    job.requested = true;
    return this.options.connections.request(this.rules.originOf(job), job, authorization);
  }

  /** A `200`: counted, and delivered once what the transport does after one is done. */
  private delivered(job: J): DeliveryResult | Promise<DeliveryResult> {
    this.counters.sent += 1;
    const after = this.rules.afterDelivered(job);
    return after === undefined ? 'delivered' : after.then(delivered);
  }

  private superseded(): DeliveryResult {
    this.counters.superseded += 1;
    return 'superseded';
  }

  /** Why the push must not be sent (again) now, if it must not. */
  private stopBefore(job: J): DeliveryResult | undefined {
    if (this.waits.closed) return this.drop(job, 'transport closed');
    if (this.options.superseding.isSuperseded(job.key, job.seq)) return this.superseded();
    if (this.clock.now() >= job.expiresAtMs) return this.drop(job, 'expired');
    return undefined;
  }

  /** The service says the device's token is dead: it is removed wherever the device registered it. */
  private async removeToken(job: J, answer: { status: number; reason: string | null }): Promise<DeliveryResult> {
    const { rules } = this;
    await rules.removeToken(job);
    this.counters.tokensRemoved += 1;
    this.options.logger.info(`${rules.name}: ${rules.tokenName} removed`, { ...rules.about(job), status: answer.status, reason: answer.reason });
    return 'token_removed';
  }

  /** The push is given up after `answer`, for `why` (`Retries.next`). */
  private giveUp(job: J, why: GiveUp, answer: PushAnswer, renewed: boolean): DeliveryResult {
    const { rules } = this;
    switch (why) {
      case 'credential refused':
        return this.drop(job, `${rules.credentialName} refused`, rules.credentialRefused(job, renewed, answer), 'refused');
      case 'refused':
        rules.refused?.(job, answer);
        return this.drop(job, 'refused', answer, 'refused');
      default:
        return this.drop(job, why, answer);
    }
  }

  /**
   * Gives the push up, logged; `refused` when the service refused it for good, else
   * `dropped`, with the service's own reason when it answered one (APNs's `BadTopic`, FCM's
   * `INVALID_ARGUMENT`...) after why.
   */
  private drop(job: J, why: string, answer?: PushAnswer, outcome: 'dropped' | 'refused' = 'dropped'): PushReport {
    this.counters.dropped += 1;
    this.options.logger.warn(`${this.rules.name}: push dropped (${why})`, { ...this.rules.about(job), ...(answer === undefined ? {} : answerFields(answer)) });
    return givenUp(outcome, why, answer);
  }
}
