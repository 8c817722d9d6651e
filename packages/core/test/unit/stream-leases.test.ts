import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createStreamLeaseKeeper, STREAM_LEASE_RENEW_MS, STREAM_LEASE_TTL_MS, type KeptLease } from '../../src/events/stream-leases.js';
import { silentLogger } from '../../src/logger.js';
import { createManualClock } from '../../../../test/support/manual-clock.js';

const lease = (accountId: string, leaseId: string, leaseLost = () => {}): KeptLease => ({ accountId, leaseId, leaseLost });

describe('stream lease keeper', () => {
  it('renews every held lease every 20 s with one timer, so a live stream keeps its slot past the lease time', async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const keeper = createStreamLeaseKeeper(storage, clock, silentLogger);
    for (const id of ['a', 'b']) expect(await storage.acquireStreamLease('acme', id, { max: 4, now: clock.now(), ttlMs: STREAM_LEASE_TTL_MS })).toBe(true);
    keeper.keep(lease('acme', 'a'));
    keeper.keep(lease('acme', 'b'));
    expect(clock.pendingTimers()).toBe(1);
    for (let i = 0; i < 6; i++) {
      clock.advance(STREAM_LEASE_RENEW_MS);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Two minutes on: both leases are still held, so only two more slots are free.
    expect(await storage.acquireStreamLease('acme', 'c', { max: 4, now: clock.now(), ttlMs: STREAM_LEASE_TTL_MS })).toBe(true);
    expect(await storage.acquireStreamLease('acme', 'd', { max: 4, now: clock.now(), ttlMs: STREAM_LEASE_TTL_MS })).toBe(true);
    expect(await storage.acquireStreamLease('acme', 'e', { max: 4, now: clock.now(), ttlMs: STREAM_LEASE_TTL_MS })).toBe(false);
    keeper.close();
  });

  it('reports a lease it can no longer renew as lost, and stops renewing a released one', async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const keeper = createStreamLeaseKeeper(storage, clock, silentLogger);
    await storage.acquireStreamLease('acme', 'a', { max: 4, now: clock.now(), ttlMs: STREAM_LEASE_TTL_MS });
    let lost = 0;
    keeper.keep(lease('acme', 'a', () => lost++));
    const gone = lease('acme', 'gone', () => lost++);
    keeper.keep(gone);
    keeper.drop(gone);
    await storage.releaseStreamLease('acme', 'a'); // e.g. purged after this instance stalled
    clock.advance(STREAM_LEASE_RENEW_MS);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });
});
