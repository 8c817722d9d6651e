import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { DeliveryJob } from '../storage/delivery-jobs.js';
import type { Storage } from '../storage/storage.js';

/**
 * Claims jobs no instance is working on, every `pollMs`: those whose lease lapsed (their
 * instance died: docs/contract/durable-delivery.md#durable-job-resume) and those that fell
 * due with nobody waiting for them (a widget's trailing push whose instance is gone). At
 * most `capacity()` at a time. Returns the stop function.
 */
export function startJobPoller(deps: {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  instanceId: string;
  leaseMs: number;
  pollMs: number;
  capacity: () => number;
  run: (job: DeliveryJob) => void;
}): () => void {
  const { storage, clock, logger, instanceId, leaseMs, pollMs, capacity, run } = deps;
  let handle: unknown;
  let stopped = false;
  const poll = async (): Promise<void> => {
    const limit = capacity();
    try {
      if (limit > 0) for (const job of await storage.claimDueDeliveryJobs({ instanceId, now: clock.now(), leaseMs, limit })) run(job);
    } catch (error) {
      logger.warn('claiming delivery jobs failed', { error: String(error) });
    }
    if (!stopped) handle = clock.setTimeout(() => void poll(), pollMs);
  };
  handle = clock.setTimeout(() => void poll(), pollMs);
  return () => {
    stopped = true;
    clock.clearTimeout(handle);
  };
}
