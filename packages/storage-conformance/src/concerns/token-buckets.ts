import { expect, it } from 'vitest';
import { type GetHandles, T0, bucketRule as rule, count, either, takeTokens, takeUntilRefused, uid } from '../harness.js';

export function tokenBucketTests(get: GetHandles): void {
  it('a new bucket starts full: exactly capacity takes, then refused', async () => {
    const { storage } = get();
    expect(await takeUntilRefused(storage, [rule(3)], T0)).toBe(3);
    expect(await takeUntilRefused(storage, [rule(8)], T0)).toBe(8);
  });

  it('refills one token per refillMs since its last refill, up to capacity', async () => {
    const { storage } = get();
    const bucket = rule(3, 1_000);
    expect(await takeUntilRefused(storage, [bucket], T0)).toBe(3);
    expect(await takeTokens(storage, [bucket], T0 + 999)).toBe(false);
    expect(await takeUntilRefused(storage, [bucket], T0 + 1_000)).toBe(1);
    expect(await takeUntilRefused(storage, [bucket], T0 + 3_000)).toBe(2);
    // A long pause refills to capacity, no more.
    expect(await takeUntilRefused(storage, [bucket], T0 + 1_000_000)).toBe(3);
  });

  it('a partial refill period is not lost by a take in between', async () => {
    const { storage } = get();
    const bucket = rule(2, 1_000);
    expect(await takeUntilRefused(storage, [bucket], T0)).toBe(2);
    expect(await takeTokens(storage, [bucket], T0 + 1_500)).toBe(true);
    expect(await takeTokens(storage, [bucket], T0 + 1_500)).toBe(false);
    expect(await takeTokens(storage, [bucket], T0 + 1_999)).toBe(false);
    expect(await takeTokens(storage, [bucket], T0 + 2_000)).toBe(true);
  });

  it('never goes negative: refused takes on an empty bucket cost nothing', async () => {
    const { storage } = get();
    const bucket = rule(1, 1_000);
    expect(await takeTokens(storage, [bucket], T0)).toBe(true);
    for (let i = 0; i < 20; i++) expect(await takeTokens(storage, [bucket], T0 + i)).toBe(false);
    expect(await takeTokens(storage, [bucket], T0 + 1_000)).toBe(true);
    expect(await takeTokens(storage, [bucket], T0 + 1_000)).toBe(false);
  });

  it('all or nothing across rules: a refused multi-rule take consumes from no bucket', async () => {
    const { storage } = get();
    const wide = rule(3, 60_000);
    const narrow = rule(1, 60_000);
    expect(await takeTokens(storage, [wide, narrow], T0)).toBe(true);
    for (let i = 0; i < 5; i++) expect(await takeTokens(storage, [wide, narrow], T0)).toBe(false);
    expect(await takeTokens(storage, [narrow, wide], T0)).toBe(false);
    // `wide` still holds exactly the two tokens left after the one successful take.
    expect(await takeUntilRefused(storage, [wide], T0)).toBe(2);
  });

  it('a key named twice is taken from twice, under its last rule', async () => {
    const { storage } = get();
    const key = uid('bucket');
    const twice = [
      { key, capacity: 5, refillMs: 60_000 },
      { key, capacity: 2, refillMs: 60_000 },
    ];
    expect(await takeTokens(storage, twice, T0)).toBe(true); // capacity 2, both taken
    expect(await takeTokens(storage, [{ key, capacity: 2, refillMs: 60_000 }], T0)).toBe(false);
  });

  it('buckets are independent by key', async () => {
    const { storage } = get();
    const a = rule(1);
    const b = rule(1);
    expect(await takeTokens(storage, [a], T0)).toBe(true);
    expect(await takeTokens(storage, [a], T0)).toBe(false);
    expect(await takeTokens(storage, [b], T0)).toBe(true);
  });

  it('concurrent takes from two handles never exceed capacity', async () => {
    const handles = get();
    const bucket = rule(10, 60_000);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => takeTokens(either(handles, i), [bucket], T0)));
    expect(count(results, (r) => r)).toBe(10);
    expect(await takeTokens(handles.peer, [bucket], T0 + 59_999)).toBe(false);
    expect(await takeTokens(handles.storage, [bucket], T0 + 60_000)).toBe(true);
  });

  it('concurrent multi-rule takes: the shared bucket caps the total, refused callers keep their own tokens', async () => {
    const handles = get();
    const shared = rule(5, 60_000);
    const own = Array.from({ length: 20 }, () => rule(1, 60_000));
    const results = await Promise.all(own.map((mine, i) => takeTokens(either(handles, i), [mine, shared], T0)));
    expect(count(results, (r) => r)).toBe(5);
    expect(await takeTokens(handles.storage, [shared], T0)).toBe(false);
    for (const [i, mine] of own.entries()) {
      // Winners spent their own token; losers did not.
      expect(await takeTokens(handles.peer, [mine], T0)).toBe(!results[i]);
    }
  });
}
