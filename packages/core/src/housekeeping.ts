import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { Storage } from './storage/storage.js';

/** Rows of each kind removed per purge round: small, so a round never blocks requests for long. */
export const PURGE_BATCH = 500;

/**
 * Removes expired events, press keys, stream slots (events, devices) and claims in bounded batches, every
 * `intervalMs`; rounds that hit the batch size are followed at once by another.
 * Returns the stop function.
 */
export function startHousekeeping(storage: Storage, clock: Clock, logger: Logger, intervalMs: number): () => void {
  let timer: unknown;
  let stopped = false;
  const round = async (): Promise<void> => {
    try {
      const removed = await storage.purgeExpired({ now: clock.now(), batch: PURGE_BATCH });
      if (!stopped) schedule(removed >= PURGE_BATCH ? 0 : intervalMs);
    } catch (error) {
      logger.warn('purging expired rows failed', { error: String(error) });
      if (!stopped) schedule(intervalMs);
    }
  };
  const schedule = (ms: number) => {
    timer = clock.setTimeout(() => void round(), ms);
  };
  schedule(intervalMs);
  return () => {
    stopped = true;
    clock.clearTimeout(timer);
  };
}
