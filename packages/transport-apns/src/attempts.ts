import type { Clock } from '@tilecast/core';
import { Retries, RetryWaits, type PushAnswer, type RetryRules } from '@tilecast/core/push';
import type { ApnsCounters } from './counters.js';
import type { ProviderCredential } from './provider-token.js';
import { APNS_RETRY_RULES } from './delivery.js';

export interface AttemptsOptions {
  /** The provider token (`providerCredential`): it always has one to send. */
  credential: ProviderCredential;
  counters: ApnsCounters;
  /** Base delay of the first retry (doubled for the second, jittered). */
  retryBaseMs: number;
  clock: Clock;
  /** Source of the retry jitter, in [0, 1). */
  random: () => number;
}

/** What a request answered: a failure as `@tilecast/core/push` shapes them, or anything else (a success). */
type Answered = { kind: string };

const isFailure = (answer: Answered): answer is PushAnswer => answer.kind === 'answer' || answer.kind === 'network' || answer.kind === 'timeout';

/**
 * The requests of broadcast pushes and channel management, by the retry rules of per-token
 * pushes (`Retries`, `APNS_RETRY_RULES`; docs/contract/broadcast-channels.md#broadcast-answers):
 * `403 ExpiredProviderToken` renews the provider token once and tries again; `429`, `5xx`,
 * a lost stream and a timeout are tried again with jittered backoff that honours
 * `retry-after`, never past the deadline. A request given up answers its last answer (the
 * caller reads it). Waits run on the clock and end at once on `close`.
 */
export class Attempts {
  private readonly waits: RetryWaits<object>;
  private readonly rules: RetryRules;

  constructor(private readonly options: AttemptsOptions) {
    const { credential, retryBaseMs, clock, random } = options;
    this.waits = new RetryWaits(clock);
    this.rules = { ...APNS_RETRY_RULES, credential, retryBaseMs, clock, random };
  }

  /** Sends with the provider token's `authorization` until it succeeds or must be given up; answers the last answer. */
  async run<A extends Answered>(send: (authorization: string) => Promise<A>, deadlineMs: number): Promise<A> {
    const { credential, counters } = this.options;
    const retries = new Retries(this.rules);
    for (;;) {
      const authorization = credential.valid();
      const answer = await send(authorization);
      if (!isFailure(answer)) return answer;
      const step = retries.next(answer, authorization, deadlineMs);
      if (step.kind === 'give up') return answer;
      // Closed meanwhile: what failed is not tried again.
      if (step.kind === 'wait' && this.waits.closed) return answer;
      counters.retried += 1;
      if (step.kind === 'wait' && !(await this.waits.wait({}, step.ms))) return answer;
    }
  }

  /** Ends every wait to retry (the request gives up with its last answer), and every retry to come. */
  close(): void {
    this.waits.close();
  }
}
