import type { Clock } from '../clock.js';
import { isStorageUnavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import { storeErrorKind, type SafeObserver } from '../observer.js';
import type { Storage } from '../storage/storage.js';
import { deliveryDetail } from './delivery-detail.js';

/** Why `GET /readyz` says no. */
export type NotReadyReason = 'draining' | 'storage';

/** `detail`: lines about this instance worth an operator's eye that do not make it unready (docs/contract/deployment.md#readyz-detail). */
export type Readiness = { ready: true; detail: string[] } | { ready: false; reason: NotReadyReason };

/** How long `GET /readyz` waits for the store before it answers `503` (default). */
export const DEFAULT_READINESS_DEADLINE_MS = 2_000;

/**
 * An account id no one is expected to have: reading it is the readiness probe, one indexed
 * lookup that every store already answers (no `ping` in the storage contract). Should an
 * account have this id, the probe is just as good: the store answered. A holdable string on
 * purpose: a key with a NUL names nothing, and a store answers it without asking its server.
 */
export const READINESS_PROBE_ACCOUNT = 'tilecast-readiness-probe';

export interface ReadinessCheck {
  check(): Promise<Readiness>;
}

/** What a store read came to within the deadline. */
type Answer<T> = { kind: 'value'; value: T } | { kind: 'error'; error: unknown } | { kind: 'late' };

/**
 * Ready: not draining, and the store answered a cheap read within the deadline. Probes
 * that arrive while one is running share it, so a busy load balancer costs one store call
 * at a time. Beside the read, the pending delivery jobs are read within the same deadline
 * for the detail: a backlog is named there but never makes the instance unready
 * (docs/contract/deployment.md#readyz-detail).
 */
export function createReadinessCheck(deps: {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  deadlineMs: number;
  draining: () => boolean;
  /** A pending delivery job older than this is named in the detail. */
  lateAfterMs: number;
  observer?: SafeObserver;
}): ReadinessCheck {
  const { storage, clock, logger, deadlineMs, draining, lateAfterMs, observer } = deps;
  let running: Promise<Readiness> | undefined;

  /** `read()` within the deadline; a read that throws at once counts as failed. */
  const within = <T>(read: () => Promise<T>): Promise<Answer<T>> =>
    new Promise((resolve) => {
      const timer = clock.setTimeout(() => resolve({ kind: 'late' }), deadlineMs);
      Promise.resolve()
        .then(read)
        .then(
          (value) => resolve({ kind: 'value', value }),
          (error: unknown) => resolve({ kind: 'error', error }),
        )
        .finally(() => clock.clearTimeout(timer));
    });

  const probe = async (): Promise<Readiness> => {
    // Both reads at once; an unready answer does not wait for the job stats.
    const jobsRead = within(() => storage.deliveryJobStats());
    const account = await within(() => storage.getAccount(READINESS_PROBE_ACCOUNT));
    if (account.kind === 'late') {
      logger.warn('readiness: the store did not answer in time', { deadline_ms: deadlineMs });
      observer?.storeError({ kind: 'deadline' });
      return { ready: false, reason: 'storage' };
    }
    if (account.kind === 'error') {
      logger.warn('readiness: the store failed', { error: String(account.error) });
      if (isStorageUnavailable(account.error)) observer?.storeError({ kind: storeErrorKind(account.error) });
      return { ready: false, reason: 'storage' };
    }
    const jobs = await jobsRead;
    if (jobs.kind === 'error') logger.warn('readiness: the pending delivery jobs could not be read', { error: String(jobs.error) });
    const stats = jobs.kind === 'value' ? jobs.value : jobs.kind;
    const line = deliveryDetail(stats, { now: clock.now(), lateAfterMs, deadlineMs });
    return { ready: true, detail: line === null ? [] : [line] };
  };

  return {
    async check() {
      if (draining()) return { ready: false, reason: 'draining' };
      running ??= probe().finally(() => {
        running = undefined;
      });
      const result = await running;
      // A drain that began while the store answered wins.
      return draining() ? { ready: false, reason: 'draining' } : result;
    },
  };
}
