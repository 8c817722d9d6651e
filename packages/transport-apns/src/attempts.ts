import type { Clock } from '@tilecast/core';
import { isRetryable, RetryWaits, retryAfterMs, retryDelayMs, type PushAnswer } from '@tilecast/core/push';
import type { ApnsCounters } from './counters.js';
import { MAX_RETRIES } from './delivery.js';
import type { ProviderToken } from './provider-token.js';

export interface AttemptsOptions {
  provider: ProviderToken;
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
 * The requests of broadcast pushes and channel management, with the rules of per-token
 * pushes (docs/contract/broadcast-channels.md#broadcast-answers): `403 ExpiredProviderToken`
 * renews the provider token once and tries again
 * (docs/contract/apns.md#apns-expired-provider-token); `429`, `5xx`, a lost stream and a
 * timeout are tried again at most MAX_RETRIES times with jittered backoff that honours
 * `retry-after`, never past the deadline (docs/contract/apns.md#apns-retry). Waits run on
 * the clock and end at once on `close`.
 */
export class Attempts {
  private readonly waits: RetryWaits<object>;

  constructor(private readonly options: AttemptsOptions) {
    this.waits = new RetryWaits(options.clock);
  }

  /** Sends with the provider token's `authorization` until it succeeds or must be given up; answers the last answer. */
  async run<A extends Answered>(send: (authorization: string) => Promise<A>, deadlineMs: number): Promise<A> {
    const { provider, counters, clock } = this.options;
    let retries = 0;
    let renewed = false;
    for (;;) {
      const bearer = provider.current();
      counters.providerTokens = provider.issued;
      const answer = await send(provider.authorization());
      if (!isFailure(answer)) return answer;
      if (answer.kind === 'answer' && answer.status === 403 && answer.reason === 'ExpiredProviderToken') {
        if (renewed || !provider.refused(bearer)) return answer;
        renewed = true;
        counters.retried += 1;
        continue;
      }
      if (!isRetryable(answer) || retries >= MAX_RETRIES || this.waits.closed) return answer;
      retries += 1;
      const told = retryAfterMs(answer.kind === 'answer' ? answer.retryAfter : null, clock.now());
      const delay = retryDelayMs(retries, this.options.retryBaseMs, told, this.options.random);
      if (clock.now() + delay >= deadlineMs) return answer;
      counters.retried += 1;
      if (!(await this.waits.wait({}, delay))) return answer;
    }
  }

  /** Ends every wait to retry (the request gives up with its last answer), and every retry to come. */
  close(): void {
    this.waits.close();
  }
}
