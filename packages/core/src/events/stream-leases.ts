import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Storage } from '../storage/storage.js';

/** A stream slot is a lease renewed while the stream lives, so a crashed instance's slots free themselves. */
export const STREAM_LEASE_TTL_MS = 60_000;
export const STREAM_LEASE_RENEW_MS = 20_000;

/** A lease to keep renewed: the stream itself holds these (no record or closure per stream). */
export interface KeptLease {
  readonly accountId: string;
  readonly leaseId: string;
  /** The lease could not be renewed: another instance may take the slot now. */
  leaseLost(): void;
}

/**
 * Renews the stream leases of one instance with one timer for all of them (not one per
 * stream: an instance may hold ten thousand). A lease whose renewal fails is reported
 * lost, and its stream ends.
 */
export interface StreamLeaseKeeper {
  /** Keeps the lease renewed until it is dropped. */
  keep(lease: KeptLease): void;
  drop(lease: KeptLease): void;
  close(): void;
}

export function createStreamLeaseKeeper(storage: Storage, clock: Clock, logger: Logger): StreamLeaseKeeper {
  const held = new Set<KeptLease>();
  let timer: unknown;
  let scheduled = false;

  const renewalFailed = (error: unknown): false => {
    logger.warn('stream lease renewal failed', { error: String(error) });
    return false;
  };
  // All renewals at once, then one pass over their answers: a promise per lease, but no
  // async function or closure per lease every 20 s.
  const renewAll = (): Promise<void> => {
    scheduled = false;
    const now = clock.now();
    const leases = [...held];
    const renewals = leases.map((lease) => storage.renewStreamLease(lease.accountId, lease.leaseId, { now, ttlMs: STREAM_LEASE_TTL_MS }).catch(renewalFailed));
    return Promise.all(renewals).then((kept) => {
      for (let i = 0; i < leases.length; i++) if (!kept[i] && held.delete(leases[i]!)) leases[i]!.leaseLost();
      schedule();
    });
  };
  const schedule = () => {
    if (scheduled || held.size === 0) return;
    scheduled = true;
    timer = clock.setTimeout(() => void renewAll(), STREAM_LEASE_RENEW_MS);
  };

  return {
    keep(lease) {
      held.add(lease);
      schedule();
    },
    drop(lease) {
      held.delete(lease);
    },
    close() {
      held.clear();
      clock.clearTimeout(timer);
      scheduled = false;
    },
  };
}
