import type { Clock } from '../clock.js';
import { isStorageUnavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import { storeErrorKind, type SafeObserver } from '../observer.js';
import type { Storage } from '../storage/storage.js';

/** Why `GET /readyz` says no. */
export type NotReadyReason = 'draining' | 'storage';

export type Readiness = { ready: true } | { ready: false; reason: NotReadyReason };

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

/**
 * Ready: not draining, and the store answered a cheap read within the deadline. Probes
 * that arrive while one is running share it, so a busy load balancer costs one store call
 * at a time.
 */
export function createReadinessCheck(deps: {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  deadlineMs: number;
  draining: () => boolean;
  observer?: SafeObserver;
}): ReadinessCheck {
  const { storage, clock, logger, deadlineMs, draining, observer } = deps;
  let running: Promise<Readiness> | undefined;
  const probe = (): Promise<Readiness> =>
    new Promise<Readiness>((resolve) => {
      const timer = clock.setTimeout(() => {
        logger.warn('readiness: the store did not answer in time', { deadline_ms: deadlineMs });
        observer?.storeError({ kind: 'deadline' });
        resolve({ ready: false, reason: 'storage' });
      }, deadlineMs);
      storage.getAccount(READINESS_PROBE_ACCOUNT).then(
        () => {
          clock.clearTimeout(timer);
          resolve({ ready: true });
        },
        (error: unknown) => {
          clock.clearTimeout(timer);
          logger.warn('readiness: the store failed', { error: String(error) });
          if (isStorageUnavailable(error)) observer?.storeError({ kind: storeErrorKind(error) });
          resolve({ ready: false, reason: 'storage' });
        },
      );
    });
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
