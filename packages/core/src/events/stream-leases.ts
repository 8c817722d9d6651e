import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Storage } from '../storage/storage.js';

/** A stream slot is a lease renewed while the stream lives, so a crashed instance's slots free themselves. */
export const STREAM_LEASE_TTL_MS = 60_000;
export const STREAM_LEASE_RENEW_MS = 20_000;

/**
 * Renews the stream leases of one instance with one timer for all of them (not one per
 * stream: an instance may hold ten thousand). A lease whose renewal fails is reported
 * lost, and its stream ends.
 */
export interface StreamLeaseKeeper {
  /** Keeps the lease renewed until the returned function is called. */
  keep(accountId: string, leaseId: string, onLost: () => void): () => void;
  close(): void;
}

export function createStreamLeaseKeeper(storage: Storage, clock: Clock, logger: Logger): StreamLeaseKeeper {
  const held = new Map<string, { accountId: string; onLost: () => void }>();
  let timer: unknown;
  let scheduled = false;

  const renewAll = async (): Promise<void> => {
    scheduled = false;
    const now = clock.now();
    await Promise.all(
      [...held].map(async ([leaseId, lease]) => {
        const kept = await storage.renewStreamLease(lease.accountId, leaseId, now, STREAM_LEASE_TTL_MS).catch((error: unknown) => {
          logger.warn('stream lease renewal failed', { error: String(error) });
          return false;
        });
        if (!kept && held.delete(leaseId)) lease.onLost();
      }),
    );
    schedule();
  };
  const schedule = () => {
    if (scheduled || held.size === 0) return;
    scheduled = true;
    timer = clock.setTimeout(() => void renewAll(), STREAM_LEASE_RENEW_MS);
  };

  return {
    keep(accountId, leaseId, onLost) {
      held.set(leaseId, { accountId, onLost });
      schedule();
      return () => void held.delete(leaseId);
    },
    close() {
      held.clear();
      clock.clearTimeout(timer);
      scheduled = false;
    },
  };
}
