/**
 * Time as the event loop sees it: injected so tests run on fake time, never on sleeps.
 */
export interface Timing {
  /** Epoch milliseconds: compared with events' `expires_at`. */
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** A number in [0, 1): the jitter of reconnection back-off. */
  random(): number;
}

export const systemTiming: Timing = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      if (signal?.aborted) return resolve();
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
  random: () => Math.random(),
};

export interface BackoffOptions {
  /** Delay before the first retry of a failed connection attempt. Default 1000 ms. */
  initialDelayMs?: number;
  /** The ceiling of the delay, however many attempts failed. Default 30000 ms. */
  maxDelayMs?: number;
}

/**
 * Delay after `failures` failed attempts in a row (1, 2, ...): doubling from the initial
 * delay up to the cap, then "equal jitter" (half fixed, half random) so many clients
 * cut off together do not come back in lockstep, yet none retries at once.
 */
export function backoffDelay(failures: number, options: Required<BackoffOptions>, random: number): number {
  const exponent = Math.min(Math.max(failures - 1, 0), 30);
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** exponent);
  return Math.round(ceiling / 2 + (ceiling / 2) * random);
}
