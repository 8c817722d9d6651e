import type { ActivityUpdateResult } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, content, iso, newAccount, newActivity, uid } from '../harness.js';

const ok = (result: ActivityUpdateResult) => {
  if (!result.ok) throw new Error(`expected ok, got ${result.reason}`);
  return result;
};

export function activityTests(get: GetHandles): void {
  it('every accepted update gets a time later than the one before: one millisecond on when two come at one now, or the clock is behind', async () => {
    const { storage, peer: other } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const times: Array<string | null> = [];
    for (const [state, now] of [
      ['ONGOING', T0],
      ['ONGOING', T0],
      ['ONGOING', T0 - 5_000],
      ['IDLE', T0],
    ] as const) {
      // Alternate handles: the rule holds across instances.
      const handle = times.length % 2 === 0 ? storage : other;
      const result = ok(await handle.applyActivityUpdate(account.id, activity.slug, { state, content: content(times.length), now }));
      times.push(result.activity.updatedAt);
    }
    expect(times).toEqual([iso(T0), iso(T0 + 1), iso(T0 + 2), iso(T0 + 3)]);
    expect((await other.getActivity(account.id, activity.slug))?.updatedAt).toBe(iso(T0 + 3));
    // A later clock is taken as it is.
    const later = ok(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'IDLE', content: content(9), now: T0 + 60_000 }));
    expect(later.activity.updatedAt).toBe(iso(T0 + 60_000));
  });

  it('putActivity creates a not-live IDLE activity without content; unknown slugs give null', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    expect(await storage.getActivity(account.id, activity.slug)).toEqual(activity);
    expect(await storage.getActivity(account.id, uid('missing'))).toBeNull();
    expect(await storage.getActivity(uid('other'), activity.slug)).toBeNull();
    expect(await storage.getActivity(account.id, activity.slug.toUpperCase())).toBeNull();
  });

  it('putActivity with the same template changes the definition and keeps state, liveness and content', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id, 'progress');
    ok(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(0.4), now: T0 }));
    await storage.putActivity({ accountId: account.id, slug: activity.slug, template: 'progress', dismissalDelayS: 600 });
    expect(await storage.getActivity(account.id, activity.slug)).toEqual({
      ...activity,
      dismissalDelayS: 600,
      state: 'ONGOING',
      live: true,
      content: content(0.4),
      updatedAt: iso(T0),
    });
  });

  it('putActivity with another template resets it: not live, IDLE, no content, and its quota slot is free', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 1 });
    const activity = await newActivity(storage, account.id, 'progress');
    ok(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(0.4), now: T0 }));
    await storage.putActivity({ accountId: account.id, slug: activity.slug, template: 'countdown', dismissalDelayS: 5 });
    expect(await storage.getActivity(account.id, activity.slug)).toEqual({
      ...activity,
      template: 'countdown',
      dismissalDelayS: 5,
      state: 'IDLE',
      live: false,
      content: null,
      updatedAt: null,
    });
    const other = await newActivity(storage, account.id);
    expect(ok(await storage.applyActivityUpdate(account.id, other.slug, { state: 'ONGOING', content: content(0), now: T0 })).transition).toBe('start');
  });

  it("applyActivityUpdate on an unknown activity (or another account's) is not_found and creates nothing", async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const stranger = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const missing = uid('missing');
    expect(await storage.applyActivityUpdate(account.id, missing, { state: 'ONGOING', content: content(1), now: T0 })).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(await storage.applyActivityUpdate(stranger.id, activity.slug, { state: 'IDLE', content: content(1), now: T0 })).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(await storage.getActivity(account.id, missing)).toBeNull();
    expect(await storage.getActivity(stranger.id, activity.slug)).toBeNull();
    expect(await storage.getActivity(account.id, activity.slug)).toEqual(activity);
  });

  it('lifecycle: IDLE on not-live is none, ONGOING starts, ONGOING updates, IDLE ends, IDLE again is none', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const steps: Array<['IDLE' | 'ONGOING', string, boolean]> = [
      ['IDLE', 'none', false],
      ['ONGOING', 'start', true],
      ['ONGOING', 'update', true],
      ['ONGOING', 'update', true],
      ['IDLE', 'end', false],
      ['IDLE', 'none', false],
      ['ONGOING', 'start', true],
    ];
    for (const [i, [state, transition, live]] of steps.entries()) {
      const now = T0 + i * 1_000;
      const result = await storage.applyActivityUpdate(account.id, activity.slug, { state, content: content(i), now });
      const expected = { ...activity, state, live, content: content(i), updatedAt: iso(now) };
      // A transition pushed somewhere leaves its job (concern `deliveryJobs`); `none` leaves none.
      const job = transition === 'none' ? null : expect.objectContaining({ kind: 'activity', slug: activity.slug, phase: transition, createdAt: now });
      expect(result).toEqual({ ok: true, activity: expected, transition, job });
      expect(await storage.getActivity(account.id, activity.slug)).toEqual(expected);
    }
  });

  it('a start beyond the quota is quota_exceeded and changes nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 1 });
    const first = await newActivity(storage, account.id);
    const second = await newActivity(storage, account.id);
    ok(await storage.applyActivityUpdate(account.id, first.slug, { state: 'ONGOING', content: content(1), now: T0 }));
    ok(await storage.applyActivityUpdate(account.id, second.slug, { state: 'IDLE', content: content(2), now: T0 + 1 }));
    expect(await storage.applyActivityUpdate(account.id, second.slug, { state: 'ONGOING', content: content(3), now: T0 + 2 })).toEqual({
      ok: false,
      reason: 'quota_exceeded',
    });
    expect(await storage.getActivity(account.id, second.slug)).toEqual({
      ...second,
      state: 'IDLE',
      live: false,
      content: content(2),
      updatedAt: iso(T0 + 1),
    });
  });

  it('quota 0 refuses every start but still stores IDLE updates', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 0 });
    const activity = await newActivity(storage, account.id);
    expect(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(1), now: T0 })).toEqual({
      ok: false,
      reason: 'quota_exceeded',
    });
    expect(ok(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'IDLE', content: content(1), now: T0 })).transition).toBe('none');
  });

  it('the quota counts live activities of the account only: ending one frees its slot', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 2 });
    const neighbour = await newAccount(storage, { activityQuota: 5 });
    const [a, b, c] = [await newActivity(storage, account.id), await newActivity(storage, account.id), await newActivity(storage, account.id)];
    for (let i = 0; i < 3; i++) {
      const n = await newActivity(storage, neighbour.id);
      ok(await storage.applyActivityUpdate(neighbour.id, n.slug, { state: 'ONGOING', content: content(i), now: T0 }));
    }
    const start = (slug: string) => storage.applyActivityUpdate(account.id, slug, { state: 'ONGOING', content: content(0), now: T0 });
    expect(ok(await start(a.slug)).transition).toBe('start');
    expect(ok(await start(b.slug)).transition).toBe('start');
    expect(await start(c.slug)).toEqual({ ok: false, reason: 'quota_exceeded' });
    // Updating a live activity takes no further slot.
    expect(ok(await start(a.slug)).transition).toBe('update');
    expect(ok(await storage.applyActivityUpdate(account.id, b.slug, { state: 'IDLE', content: content(1), now: T0 })).transition).toBe('end');
    expect(ok(await start(c.slug)).transition).toBe('start');
    expect(await start(b.slug)).toEqual({ ok: false, reason: 'quota_exceeded' });
  });

  it('lowering the quota below the live count keeps live activities updatable but refuses new starts', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 3 });
    const live = [await newActivity(storage, account.id), await newActivity(storage, account.id), await newActivity(storage, account.id)];
    for (const activity of live) {
      ok(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(0), now: T0 }));
    }
    expect(await storage.updateAccount(account.id, { activityQuota: 1 })).toBe(true);
    const update = (slug: string, state: 'IDLE' | 'ONGOING') => storage.applyActivityUpdate(account.id, slug, { state, content: content(1), now: T0 });
    expect(ok(await update(live[0]!.slug, 'ONGOING')).transition).toBe('update');
    expect(ok(await update(live[0]!.slug, 'IDLE')).transition).toBe('end');
    expect(await update(live[0]!.slug, 'ONGOING')).toEqual({ ok: false, reason: 'quota_exceeded' });
    expect(ok(await update(live[1]!.slug, 'IDLE')).transition).toBe('end');
    expect(ok(await update(live[2]!.slug, 'IDLE')).transition).toBe('end');
    expect(ok(await update(live[0]!.slug, 'ONGOING')).transition).toBe('start');
  });

  it('deleteActivity is true once, then false; a deleted live activity frees its slot', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 1 });
    const first = await newActivity(storage, account.id);
    const second = await newActivity(storage, account.id);
    ok(await storage.applyActivityUpdate(account.id, first.slug, { state: 'ONGOING', content: content(1), now: T0 }));
    expect(await storage.deleteActivity(account.id, first.slug)).toBe(true);
    expect(await storage.deleteActivity(account.id, first.slug)).toBe(false);
    expect(await storage.getActivity(account.id, first.slug)).toBeNull();
    expect(await storage.applyActivityUpdate(account.id, first.slug, { state: 'IDLE', content: content(1), now: T0 })).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(ok(await storage.applyActivityUpdate(account.id, second.slug, { state: 'ONGOING', content: content(1), now: T0 })).transition).toBe('start');
  });

  it('putActivity again after deleteActivity starts from scratch', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    ok(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(1), now: T0 }));
    await storage.deleteActivity(account.id, activity.slug);
    await storage.putActivity({ accountId: account.id, slug: activity.slug, template: activity.template, dismissalDelayS: 30 });
    expect(await storage.getActivity(account.id, activity.slug)).toEqual(activity);
  });
}
