import type { PushClaim } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, count, either, uid } from '../harness.js';

const W = 2_000;

const owner = (c: PushClaim) => c.send === 'later' && !c.trailingScheduled;

export function widgetThrottleTests(get: GetHandles): void {
  it('the first claim sends now and opens a window of windowMs', async () => {
    const { storage } = get();
    expect(await storage.claimWidgetPush(uid('w'), { now: T0, windowMs: W })).toEqual({ send: 'now', windowEndsAt: T0 + W });
  });

  it('inside the window: the first caller owns the trailing push, everyone else is told it is scheduled', async () => {
    const { storage } = get();
    const key = uid('w');
    await storage.claimWidgetPush(key, { now: T0, windowMs: W });
    expect(await storage.claimWidgetPush(key, { now: T0 + 1, windowMs: W })).toEqual({ send: 'later', at: T0 + W, trailingScheduled: false });
    expect(await storage.claimWidgetPush(key, { now: T0 + 500, windowMs: W })).toEqual({ send: 'later', at: T0 + W, trailingScheduled: true });
    expect(await storage.claimWidgetPush(key, { now: T0 + W - 1, windowMs: W })).toEqual({ send: 'later', at: T0 + W, trailingScheduled: true });
  });

  it('claimTrailingPush is true exactly once and starts a new window at its now', async () => {
    const { storage } = get();
    const key = uid('w');
    await storage.claimWidgetPush(key, { now: T0, windowMs: W });
    await storage.claimWidgetPush(key, { now: T0 + 100, windowMs: W });
    expect(await storage.claimTrailingPush(key, { now: T0 + W, windowMs: W })).toBe(true);
    expect(await storage.claimTrailingPush(key, { now: T0 + W, windowMs: W })).toBe(false);
    expect(await storage.claimTrailingPush(key, { now: T0 + W + 10, windowMs: W })).toBe(false);
    // The trailing push opened a window [T0 + W, T0 + 2W): a new update waits for its end.
    expect(await storage.claimWidgetPush(key, { now: T0 + W + 1, windowMs: W })).toEqual({ send: 'later', at: T0 + 2 * W, trailingScheduled: false });
    expect(await storage.claimTrailingPush(key, { now: T0 + 2 * W, windowMs: W })).toBe(true);
    expect(await storage.claimWidgetPush(key, { now: T0 + 4 * W, windowMs: W })).toEqual({ send: 'now', windowEndsAt: T0 + 5 * W });
  });

  it('claimTrailingPush is false when no trailing push is pending, or for an unknown key', async () => {
    const { storage } = get();
    const key = uid('w');
    await storage.claimWidgetPush(key, { now: T0, windowMs: W });
    expect(await storage.claimTrailingPush(key, { now: T0 + W, windowMs: W })).toBe(false);
    expect(await storage.claimTrailingPush(uid('w'), { now: T0 + W, windowMs: W })).toBe(false);
  });

  it('after the window (at its end or later) the next claim sends now again', async () => {
    const { storage } = get();
    const key = uid('w');
    await storage.claimWidgetPush(key, { now: T0, windowMs: W });
    expect(await storage.claimWidgetPush(key, { now: T0 + W, windowMs: W })).toEqual({ send: 'now', windowEndsAt: T0 + 2 * W });
    expect(await storage.claimWidgetPush(key, { now: T0 + 2 * W + 5_000, windowMs: W })).toEqual({ send: 'now', windowEndsAt: T0 + 3 * W + 5_000 });
  });

  it('keys are independent', async () => {
    const { storage } = get();
    const [a, b] = [uid('w'), uid('w')];
    await storage.claimWidgetPush(a, { now: T0, windowMs: W });
    expect(await storage.claimWidgetPush(b, { now: T0 + 1, windowMs: W })).toEqual({ send: 'now', windowEndsAt: T0 + 1 + W });
    expect(await storage.claimWidgetPush(a, { now: T0 + 2, windowMs: W })).toEqual({ send: 'later', at: T0 + W, trailingScheduled: false });
    expect(await storage.claimWidgetPush(b, { now: T0 + 3, windowMs: W })).toEqual({ send: 'later', at: T0 + 1 + W, trailingScheduled: false });
  });

  it('concurrent claims from two handles: one sends now, exactly one owns the trailing push, one trailing claim wins', async () => {
    const handles = get();
    const key = uid('w');
    const claims = await Promise.all(Array.from({ length: 20 }, (_, i) => either(handles, i).claimWidgetPush(key, { now: T0, windowMs: W })));
    expect(claims.filter((c) => c.send === 'now')).toEqual([{ send: 'now', windowEndsAt: T0 + W }]);
    expect(count(claims, owner)).toBe(1);
    expect(claims.filter((c) => c.send === 'later').every((c) => c.send === 'later' && c.at === T0 + W)).toBe(true);

    const more = await Promise.all(Array.from({ length: 20 }, (_, i) => either(handles, i).claimWidgetPush(key, { now: T0 + 1_000, windowMs: W })));
    expect(count(more, owner)).toBe(0);

    const trailing = await Promise.all(Array.from({ length: 20 }, (_, i) => either(handles, i).claimTrailingPush(key, { now: T0 + W, windowMs: W })));
    expect(count(trailing, (t) => t)).toBe(1);
  });
}
