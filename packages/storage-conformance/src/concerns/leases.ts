import { expect, it } from 'vitest';
import { type GetHandles, T0, count, either, uid } from '../harness.js';

const MAX = 4;
const TTL = 90_000;

export function leaseTests(get: GetHandles): void {
  it(`${MAX} leases are granted, the ${MAX + 1}th is refused; other accounts are unaffected`, async () => {
    const { storage } = get();
    const account = uid('acct');
    for (let i = 0; i < MAX; i++) expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
    expect(await storage.acquireStreamLease(uid('acct'), uid('lease'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
  });

  it('releasing a lease frees its slot; releasing an unknown lease is harmless', async () => {
    const { storage } = get();
    const account = uid('acct');
    const leases = Array.from({ length: MAX }, () => uid('lease'));
    for (const lease of leases) expect(await storage.acquireStreamLease(account, lease, { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    await storage.releaseStreamLease(account, uid('lease'));
    await storage.releaseStreamLease(uid('acct'), leases[0]!);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
    await storage.releaseStreamLease(account, leases[0]!);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
  });

  it('an expired lease frees its slot without a release (valid while now < acquired + ttl)', async () => {
    const { storage } = get();
    const account = uid('acct');
    for (let i = 0; i < MAX; i++) expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0 + TTL - 1, ttlMs: TTL })).toBe(false);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(true);
    // All four old leases expired together: three more fit, then the account is full again.
    for (let i = 0; i < MAX - 1; i++) expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(true);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(false);
  });

  it('renewStreamLease extends a held lease to now + ttl', async () => {
    const { storage } = get();
    const account = uid('acct');
    const lease = uid('lease');
    expect(await storage.acquireStreamLease(account, lease, { max: 1, now: T0, ttlMs: 1_000 })).toBe(true);
    expect(await storage.renewStreamLease(account, lease, { now: T0 + 900, ttlMs: 1_000 })).toBe(true);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: 1, now: T0 + 1_500, ttlMs: 1_000 })).toBe(false);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: 1, now: T0 + 1_899, ttlMs: 1_000 })).toBe(false);
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: 1, now: T0 + 1_900, ttlMs: 1_000 })).toBe(true);
  });

  it('renewStreamLease is false for an expired, released or unknown lease, and brings none back', async () => {
    const { storage } = get();
    const account = uid('acct');
    const expired = uid('lease');
    expect(await storage.acquireStreamLease(account, expired, { max: 1, now: T0, ttlMs: 1_000 })).toBe(true);
    expect(await storage.renewStreamLease(account, expired, { now: T0 + 1_000, ttlMs: 1_000 })).toBe(false);
    const next = uid('lease');
    expect(await storage.acquireStreamLease(account, next, { max: 1, now: T0 + 1_000, ttlMs: 1_000 })).toBe(true);
    expect(await storage.renewStreamLease(account, expired, { now: T0 + 1_100, ttlMs: 1_000 })).toBe(false);
    await storage.releaseStreamLease(account, next);
    expect(await storage.renewStreamLease(account, next, { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    expect(await storage.renewStreamLease(account, uid('lease'), { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    expect(await storage.renewStreamLease(uid('acct'), next, { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    // Nothing was resurrected: the one slot is free.
    expect(await storage.acquireStreamLease(account, uid('lease'), { max: 1, now: T0 + 1_300, ttlMs: 1_000 })).toBe(true);
  });

  it(`concurrent acquires from two handles never exceed ${MAX}`, async () => {
    const handles = get();
    const account = uid('acct');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => either(handles, i).acquireStreamLease(account, uid('lease'), { max: MAX, now: T0, ttlMs: TTL })),
    );
    expect(count(results, (r) => r)).toBe(MAX);
  });

  it('concurrent acquires after a crash: the expired leases are replaced, still never more than max', async () => {
    const handles = get();
    const account = uid('acct');
    for (let i = 0; i < MAX; i++) expect(await handles.storage.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => either(handles, i).acquireStreamLease(account, uid('lease'), { max: MAX, now: T0 + TTL, ttlMs: TTL })),
    );
    expect(count(results, (r) => r)).toBe(MAX);
    expect(await handles.peer.acquireStreamLease(account, uid('lease'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(false);
  });
}
