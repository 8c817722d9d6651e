import { expect, it } from 'vitest';
import { type GetHandles, T0, count, either, uid } from '../harness.js';

const MAX = 4;
const TTL = 90_000;

export function eventStreamSlotTests(get: GetHandles): void {
  it(`${MAX} slots are granted, the ${MAX + 1}th is refused; other accounts are unaffected`, async () => {
    const { storage } = get();
    const account = uid('acct');
    for (let i = 0; i < MAX; i++) expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
    expect(await storage.acquireEventStreamSlot(uid('acct'), uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
  });

  it('releasing a slot frees it; releasing an unknown slot is harmless', async () => {
    const { storage } = get();
    const account = uid('acct');
    const slots = Array.from({ length: MAX }, () => uid('slot'));
    for (const slot of slots) expect(await storage.acquireEventStreamSlot(account, slot, { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    await storage.releaseEventStreamSlot(account, uid('slot'));
    await storage.releaseEventStreamSlot(uid('acct'), slots[0]!);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
    await storage.releaseEventStreamSlot(account, slots[0]!);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
  });

  it('an expired slot is free again without a release (valid while now < acquired + ttl)', async () => {
    const { storage } = get();
    const account = uid('acct');
    for (let i = 0; i < MAX; i++) expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0 + TTL - 1, ttlMs: TTL })).toBe(false);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(true);
    // All four old slots expired together: three more fit, then the account is full again.
    for (let i = 0; i < MAX - 1; i++) expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(true);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(false);
  });

  it('renewEventStreamSlot extends a held slot to now + ttl', async () => {
    const { storage } = get();
    const account = uid('acct');
    const slot = uid('slot');
    expect(await storage.acquireEventStreamSlot(account, slot, { max: 1, now: T0, ttlMs: 1_000 })).toBe(true);
    expect(await storage.renewEventStreamSlot(account, slot, { now: T0 + 900, ttlMs: 1_000 })).toBe(true);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 1, now: T0 + 1_500, ttlMs: 1_000 })).toBe(false);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 1, now: T0 + 1_899, ttlMs: 1_000 })).toBe(false);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 1, now: T0 + 1_900, ttlMs: 1_000 })).toBe(true);
  });

  it('renewEventStreamSlot is false for an expired, released or unknown slot, and brings none back', async () => {
    const { storage } = get();
    const account = uid('acct');
    const expired = uid('slot');
    expect(await storage.acquireEventStreamSlot(account, expired, { max: 1, now: T0, ttlMs: 1_000 })).toBe(true);
    expect(await storage.renewEventStreamSlot(account, expired, { now: T0 + 1_000, ttlMs: 1_000 })).toBe(false);
    const next = uid('slot');
    expect(await storage.acquireEventStreamSlot(account, next, { max: 1, now: T0 + 1_000, ttlMs: 1_000 })).toBe(true);
    expect(await storage.renewEventStreamSlot(account, expired, { now: T0 + 1_100, ttlMs: 1_000 })).toBe(false);
    await storage.releaseEventStreamSlot(account, next);
    expect(await storage.renewEventStreamSlot(account, next, { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    expect(await storage.renewEventStreamSlot(account, uid('slot'), { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    expect(await storage.renewEventStreamSlot(uid('acct'), next, { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    // Nothing was resurrected: the one slot is free.
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 1, now: T0 + 1_300, ttlMs: 1_000 })).toBe(true);
  });

  it(`concurrent acquires from two handles never exceed ${MAX}`, async () => {
    const handles = get();
    const account = uid('acct');
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => either(handles, i).acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })),
    );
    expect(count(results, (r) => r)).toBe(MAX);
  });

  it('concurrent acquires after a crash: the expired slots are replaced, still never more than max', async () => {
    const handles = get();
    const account = uid('acct');
    for (let i = 0; i < MAX; i++) expect(await handles.storage.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => either(handles, i).acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })),
    );
    expect(count(results, (r) => r)).toBe(MAX);
    expect(await handles.peer.acquireEventStreamSlot(account, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(false);
  });
}
