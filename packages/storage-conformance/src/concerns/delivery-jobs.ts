import { WIDGET_PUSH_WINDOW_MS, type DeliveryJob, type DeliveryJobRef, type DeliveryResource, type Storage } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, type Handles, T0, content, either, newAccount, newActivity, newWidget, randomHash, uid, written } from '../harness.js';

const LEASE = 30_000;
const W = WIDGET_PUSH_WINDOW_MS;
const HOUR = 3_600_000;

/**
 * `claimDueDeliveryJobs` claims every due job of the store, and the jobs of other concerns
 * are due from `T0` on. So each test that claims runs in an hour of its own, below `T0` and
 * below the hour of every test before it: at its times, no job of another test or concern
 * is due, even on a shared database, and its own jobs are the oldest.
 */
const hour = (n: number): number => T0 - 1_000 * HOUR - n * HOUR;

const terms = (instanceId: string, now: number) => ({ instanceId, now, leaseMs: LEASE });

const refOf = (job: DeliveryJob, instanceId: string, generation = job.generation): DeliveryJobRef => ({
  accountId: job.accountId,
  kind: job.kind,
  slug: job.slug,
  generation,
  instanceId,
});

const resourceOf = (job: DeliveryJob): DeliveryResource => ({ accountId: job.accountId, kind: job.kind, slug: job.slug });

/** A job as an update leaves it when nothing of an older one is owed. */
const fresh = (resource: DeliveryResource, phase: DeliveryJob['phase'], now: number, dueAt = now): Omit<DeliveryJob, 'generation'> => ({
  ...resource,
  phase,
  startAbove: null,
  cursor: '',
  dueAt,
  createdAt: now,
  leasedBy: null,
  leaseUntil: 0,
  resumed: 0,
});

const jobsOf = (storage: Storage, accountId: string): Promise<DeliveryJob[]> => storage.listDeliveryJobs({ accountId, limit: 100 });

async function activityUpdate(storage: Storage, accountId: string, slug: string, state: 'IDLE' | 'ONGOING', now: number): Promise<DeliveryJob> {
  const result = written(await storage.applyActivityUpdate(accountId, slug, { state, content: content(now), now }));
  if (result.job === null) throw new Error(`the ${result.transition} update left no job`);
  return result.job;
}

async function widgetUpdate(storage: Storage, accountId: string, slug: string, now: number): Promise<DeliveryJob> {
  return written(await storage.setWidgetContent(accountId, slug, { content: content(now), staleAfter: undefined, now })).job;
}

/** What a content write given `claim` terms for `instanceId` returns as its job. */
async function claimingActivityUpdate(storage: Storage, accountId: string, slug: string, now: number, instanceId: string): Promise<DeliveryJob> {
  const claim = { instanceId, leaseMs: LEASE };
  const result = written(await storage.applyActivityUpdate(accountId, slug, { state: 'ONGOING', content: content(now), now, claim }));
  if (result.job === null) throw new Error(`the ${result.transition} update left no job`);
  return result.job;
}

async function claimingWidgetUpdate(storage: Storage, accountId: string, slug: string, now: number, instanceId: string): Promise<DeliveryJob> {
  const claim = { instanceId, leaseMs: LEASE };
  return written(await storage.setWidgetContent(accountId, slug, { content: content(now), staleAfter: undefined, now, claim })).job;
}

/** A widget of a new account with one update at `now`: its job. */
async function newWidgetJob(storage: Storage, now: number): Promise<DeliveryJob> {
  const account = await newAccount(storage);
  const widget = await newWidget(storage, account.id);
  return widgetUpdate(storage, account.id, widget.slug, now);
}

/** An activity of a new account started at `now`: its job. */
async function newActivityJob(storage: Storage, now: number): Promise<DeliveryJob> {
  const account = await newAccount(storage);
  const activity = await newActivity(storage, account.id);
  return activityUpdate(storage, account.id, activity.slug, 'ONGOING', now);
}

/** What one of `claims` concurrent claims on both handles, half by resource and half by due time, got. */
async function raceClaims(handles: Handles, job: DeliveryJob, now: number, claims: number): Promise<DeliveryJob[]> {
  const won = await Promise.all(
    Array.from({ length: claims }, async (_, i) => {
      const storage = either(handles, i);
      if (i % 4 < 2) return storage.claimDeliveryJob(resourceOf(job), job.generation, terms(`racer-${i}`, now));
      const due = await storage.claimDueDeliveryJobs({ ...terms(`racer-${i}`, now), limit: 5 });
      return due.find((claimed) => claimed.slug === job.slug) ?? null;
    }),
  );
  return won.filter((claimed): claimed is DeliveryJob => claimed !== null);
}

/**
 * Delivery jobs (docs/contract/durable-delivery.md): written by the content writes in the
 * same step, claimed by one instance at a time under a lease, resumed from their progress
 * when a lease lapses, superseded by a newer update, held back by a widget's throttle
 * window, and gone with their resource.
 */
export function deliveryJobTests(get: GetHandles): void {
  it('an accepted activity update writes its job in the same step and returns it; the job is a copy', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const resource = { accountId: account.id, kind: 'activity', slug: activity.slug } as const;
    const started = written(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(1), now: T0 }));
    expect(started.job).toEqual({ ...fresh(resource, 'start', T0), generation: expect.any(Number) });
    expect(await jobsOf(peer, account.id)).toEqual([started.job]);

    started.job!.cursor = 'scribbled';
    expect((await jobsOf(storage, account.id))[0]!.cursor).toBe('');

    const ended = written(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'IDLE', content: content(2), now: T0 + 1 }));
    expect(ended.job).toEqual({ ...fresh(resource, 'end', T0 + 1), generation: expect.any(Number) });
    expect(ended.job!.generation).toBeGreaterThan(started.job!.generation);
    expect(await jobsOf(peer, account.id)).toEqual([ended.job]);
  });

  it('a widget update writes its job in the same step: phase changed, due at once when no window runs', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const resource = { accountId: account.id, kind: 'widget', slug: widget.slug } as const;
    const first = await widgetUpdate(storage, account.id, widget.slug, T0);
    expect(first).toEqual({ ...fresh(resource, 'changed', T0), generation: expect.any(Number) });
    // No claim yet, so no window: the next update is due at once too, and replaces the job.
    const second = await widgetUpdate(peer, account.id, widget.slug, T0 + 1);
    expect(second).toEqual({ ...fresh(resource, 'changed', T0 + 1), generation: expect.any(Number) });
    expect(second.generation).toBeGreaterThan(first.generation);
    expect(await jobsOf(storage, account.id)).toEqual([second]);
  });

  it('an update refused or pushed nowhere writes no job, and leaves an unfinished one as it was', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 1 });
    const [live, idle] = [await newActivity(storage, account.id, 'progress'), await newActivity(storage, account.id, 'progress')];
    const widget = await newWidget(storage, account.id, 'switchboard');
    const liveJob = await activityUpdate(storage, account.id, live.slug, 'ONGOING', T0);
    const widgetJob = await widgetUpdate(storage, account.id, widget.slug, T0 + 1);
    const update = (slug: string, state: 'IDLE' | 'ONGOING', guard?: { template?: string; tokenHash?: string }) =>
      storage.applyActivityUpdate(account.id, slug, { state, content: content(9), now: T0 + 2, guard });
    const write = (slug: string, guard?: { template?: string; tokenHash?: string }) =>
      storage.setWidgetContent(account.id, slug, { content: content(9), staleAfter: undefined, now: T0 + 2, guard });

    expect(await update(idle.slug, 'ONGOING')).toEqual({ ok: false, reason: 'quota_exceeded' });
    expect(written(await update(idle.slug, 'IDLE'))).toMatchObject({ transition: 'none', job: null });
    expect(await update(uid('missing'), 'ONGOING')).toEqual({ ok: false, reason: 'not_found' });
    expect(await update(live.slug, 'ONGOING', { template: 'countdown' })).toEqual({ ok: false, reason: 'template_mismatch' });
    expect(await update(live.slug, 'IDLE', { tokenHash: randomHash() })).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await write(uid('missing'))).toEqual({ ok: false, reason: 'not_found' });
    expect(await write(widget.slug, { template: 'gauge' })).toEqual({ ok: false, reason: 'template_mismatch' });
    expect(await write(widget.slug, { tokenHash: randomHash() })).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await jobsOf(storage, account.id)).toEqual([liveJob, widgetJob]);

    // An end not yet delivered stays as it is when an IDLE update of the ended activity is stored.
    const ended = await activityUpdate(storage, account.id, live.slug, 'IDLE', T0 + 3);
    expect(written(await storage.applyActivityUpdate(account.id, live.slug, { state: 'IDLE', content: content(4), now: T0 + 4 }))).toMatchObject({
      transition: 'none',
      job: null,
    });
    expect(await jobsOf(storage, account.id)).toEqual([widgetJob, ended]);
  });

  it('concurrent updates of one widget on two handles: one generation each, and the job left is that of the content left', async () => {
    const handles = get();
    const account = await newAccount(handles.storage);
    const widget = await newWidget(handles.storage, account.id);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        either(handles, i).setWidgetContent(account.id, widget.slug, { content: content(i), staleAfter: undefined, now: T0 + 10 }),
      ),
    );
    const jobs = results.map((result) => written(result).job);
    const generations = jobs.map((job) => job.generation);
    expect(new Set(generations).size).toBe(20);
    const latest = generations.indexOf(Math.max(...generations));
    expect((await handles.peer.getWidget(account.id, widget.slug))?.content).toEqual(content(latest));
    expect(await jobsOf(handles.peer, account.id)).toEqual([jobs[latest]]);
  });

  it('generations rise across resources and handles, and are never reused, even after a job is done', async () => {
    const handles = get();
    const t = hour(1);
    const generations: number[] = [];
    for (let i = 0; i < 6; i++) {
      const store = either(handles, i);
      generations.push((i % 2 === 0 ? await newWidgetJob(store, t + i) : await newActivityJob(store, t + i)).generation);
    }
    expect(generations).toEqual([...generations].sort((a, b) => a - b));
    expect(new Set(generations).size).toBe(6);

    const account = await newAccount(handles.storage);
    const widget = await newWidget(handles.storage, account.id);
    const job = await widgetUpdate(handles.storage, account.id, widget.slug, t + 10);
    expect(await handles.peer.claimDeliveryJob(resourceOf(job), job.generation, terms('a', t + 10))).not.toBeNull();
    expect(await handles.peer.completeDeliveryJob(refOf(job, 'a'))).toBe(true);
    const next = await widgetUpdate(handles.peer, account.id, widget.slug, t + 20);
    expect(next.generation).toBeGreaterThan(Math.max(job.generation, ...generations));
  });

  it('claimDeliveryJob claims the job of that generation once it is due, for one claimant while the lease holds', async () => {
    const { storage, peer } = get();
    const t = hour(2);
    const job = await newActivityJob(storage, t);
    const resource = resourceOf(job);
    expect(await storage.claimDeliveryJob(resource, job.generation, terms('a', t - 1))).toBeNull(); // not due yet
    expect(await storage.claimDeliveryJob(resource, job.generation + 1, terms('a', t))).toBeNull(); // not this generation
    expect(await storage.claimDeliveryJob({ ...resource, kind: 'widget' }, job.generation, terms('a', t))).toBeNull();

    const held = { ...job, leasedBy: 'a', leaseUntil: t + LEASE };
    expect(await storage.claimDeliveryJob(resource, job.generation, terms('a', t))).toEqual(held);
    expect(await peer.claimDeliveryJob(resource, job.generation, terms('b', t + LEASE - 1))).toBeNull();
    expect(await storage.claimDeliveryJob(resource, job.generation, terms('a', t + LEASE - 1))).toBeNull(); // held, by itself too
    expect(await peer.claimDueDeliveryJobs({ ...terms('b', t + LEASE - 1), limit: 10 })).toEqual([]);
    expect(await peer.listDeliveryJobs({ accountId: job.accountId, limit: 10 })).toEqual([held]);
  });

  it('of 20 concurrent claims on two handles exactly one wins, and again once its lease lapsed', async () => {
    const handles = get();
    const t = hour(3);
    const job = await newWidgetJob(handles.storage, t);
    const first = await raceClaims(handles, job, t, 20);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ generation: job.generation, leaseUntil: t + LEASE, resumed: 0 });

    const second = await raceClaims(handles, job, t + LEASE, 20);
    expect(second).toHaveLength(1);
    expect(second[0]).toMatchObject({ generation: job.generation, leaseUntil: t + 2 * LEASE });
    // Taken over from another instance: a resume (one racer may also have won both rounds).
    expect(second[0]!.resumed).toBe(second[0]!.leasedBy === first[0]!.leasedBy ? 0 : 1);
  });

  it('claimDueDeliveryJobs claims the due jobs oldest first, at most limit, never one that is leased or not due', async () => {
    const handles = get();
    const { storage, peer } = handles;
    const t = hour(4);
    const account = await newAccount(storage);
    const widgets = [];
    for (let i = 0; i < 6; i++) widgets.push(await newWidget(storage, account.id));
    // Written newest due first, so that the order claimed is not the order written.
    const jobs: DeliveryJob[] = [];
    for (let i = 5; i >= 0; i--) jobs[i] = await widgetUpdate(storage, account.id, widgets[i]!.slug, t + i);
    const later = await newActivityJob(storage, t + 100);

    const a = await storage.claimDueDeliveryJobs({ ...terms('a', t + 50), limit: 2 });
    expect(a).toEqual(jobs.slice(0, 2).map((job) => ({ ...job, leasedBy: 'a', leaseUntil: t + 50 + LEASE })));
    const b = await peer.claimDueDeliveryJobs({ ...terms('b', t + 50), limit: 10 });
    expect(b).toEqual(jobs.slice(2).map((job) => ({ ...job, leasedBy: 'b', leaseUntil: t + 50 + LEASE })));
    expect(await storage.claimDueDeliveryJobs({ ...terms('c', t + 50), limit: 10 })).toEqual([]);
    expect(await storage.claimDueDeliveryJobs({ ...terms('c', t + 100), limit: 0 })).toEqual([]);

    // Racing claimants over nine due jobs (eight new ones and `later`): each is claimed exactly once.
    const more: DeliveryJob[] = [];
    for (let i = 0; i < 8; i++) more.push(await newWidgetJob(storage, t + 200 + i));
    const claimed = (
      await Promise.all(Array.from({ length: 10 }, (_, i) => either(handles, i).claimDueDeliveryJobs({ ...terms(`racer-${i}`, t + 300), limit: 2 })))
    ).flat();
    const key = (job: DeliveryJob) => `${job.accountId}/${job.kind}/${job.slug}#${job.generation}`;
    expect(claimed.map(key).sort()).toEqual([...more, later].map(key).sort());
  });

  it('a lapsed lease lets another claimant resume from the recorded progress; the old holder can change nothing', async () => {
    const { storage, peer } = get();
    const t = hour(5);
    const job = await newActivityJob(storage, t);
    const resource = resourceOf(job);
    await storage.claimDeliveryJob(resource, job.generation, terms('a', t));
    expect(await storage.recordDeliveryProgress(refOf(job, 'b'), { cursor: 'dev-0500', now: t + 1_000, leaseMs: LEASE })).toBe(false); // not the holder
    expect(await storage.recordDeliveryProgress(refOf(job, 'a'), { cursor: 'dev-0100', now: t + 1_000, leaseMs: LEASE })).toBe(true);
    // The lease was renewed by the progress: it holds until t + 1_000 + LEASE.
    expect(await peer.claimDeliveryJob(resource, job.generation, terms('b', t + LEASE))).toBeNull();
    const resumed = await peer.claimDeliveryJob(resource, job.generation, terms('b', t + 1_000 + LEASE));
    expect(resumed).toEqual({ ...job, cursor: 'dev-0100', leasedBy: 'b', leaseUntil: t + 1_000 + 2 * LEASE, resumed: 1 });

    expect(await storage.recordDeliveryProgress(refOf(job, 'a'), { cursor: 'dev-0900', now: t + 1_001 + LEASE, leaseMs: LEASE })).toBe(false);
    expect(await storage.completeDeliveryJob(refOf(job, 'a'))).toBe(false);
    await storage.releaseDeliveryJob(refOf(job, 'a'));
    expect(await jobsOf(storage, job.accountId)).toEqual([resumed]);

    // The holder's own progress fails once its lease has lapsed (at leaseUntil), and holds just before.
    const until = t + 1_000 + 2 * LEASE;
    expect(await peer.recordDeliveryProgress(refOf(job, 'b'), { cursor: 'dev-0200', now: until - 1, leaseMs: LEASE })).toBe(true);
    expect(await peer.recordDeliveryProgress(refOf(job, 'b'), { cursor: 'dev-0300', now: until - 1 + LEASE, leaseMs: LEASE })).toBe(false);
    const again = await storage.claimDeliveryJob(resource, job.generation, terms('a', until - 1 + LEASE));
    expect(again).toEqual({ ...job, cursor: 'dev-0200', leasedBy: 'a', leaseUntil: until - 1 + 2 * LEASE, resumed: 2 });

    expect(await peer.completeDeliveryJob(refOf(job, 'b'))).toBe(false);
    expect(await storage.completeDeliveryJob(refOf(job, 'a'))).toBe(true);
    expect(await storage.completeDeliveryJob(refOf(job, 'a'))).toBe(false);
    expect(await jobsOf(peer, job.accountId)).toEqual([]);
    expect(await peer.claimDeliveryJob(resource, job.generation, terms('b', until + 10 * LEASE))).toBeNull();
  });

  it('releaseDeliveryJob hands the job back with its progress: claimable at once, and not counted as a resume', async () => {
    const { storage, peer } = get();
    const t = hour(6);
    const job = await newWidgetJob(storage, t);
    const resource = resourceOf(job);
    await storage.claimDeliveryJob(resource, job.generation, terms('a', t));
    expect(await storage.recordDeliveryProgress(refOf(job, 'a'), { cursor: 'dev-5', now: t + 1, leaseMs: LEASE })).toBe(true);
    await peer.releaseDeliveryJob(refOf(job, 'b')); // not the holder: nothing happens
    await peer.releaseDeliveryJob(refOf(job, 'a', job.generation - 1)); // not this generation: nothing happens
    expect(await jobsOf(storage, job.accountId)).toEqual([{ ...job, cursor: 'dev-5', leasedBy: 'a', leaseUntil: t + 1 + LEASE }]);
    await storage.releaseDeliveryJob(refOf(job, 'a'));
    expect(await jobsOf(peer, job.accountId)).toEqual([{ ...job, cursor: 'dev-5' }]);
    // Claimed by another instance at once (the widget's window does not hold back its own job).
    expect(await peer.claimDeliveryJob(resource, job.generation, terms('b', t + 2))).toEqual({
      ...job,
      cursor: 'dev-5',
      leasedBy: 'b',
      leaseUntil: t + 2 + LEASE,
      resumed: 0,
    });
  });

  it('a newer update supersedes the unfinished job: new generation, from the first device, lease and resumes dropped', async () => {
    const { storage, peer } = get();
    const t = hour(7);
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const resource = { accountId: account.id, kind: 'activity', slug: activity.slug } as const;
    const old = await activityUpdate(storage, account.id, activity.slug, 'ONGOING', t);
    await storage.claimDeliveryJob(resource, old.generation, terms('a', t));
    await peer.claimDeliveryJob(resource, old.generation, terms('b', t + LEASE)); // a resume: resumed 1
    expect(await peer.recordDeliveryProgress(refOf(old, 'b'), { cursor: 'dev-m', now: t + LEASE + 1, leaseMs: LEASE })).toBe(true);

    const newer = await activityUpdate(peer, account.id, activity.slug, 'ONGOING', t + LEASE + 2);
    expect(newer).toEqual({ ...fresh(resource, 'update', t + LEASE + 2), generation: expect.any(Number), startAbove: 'dev-m' });
    expect(newer.generation).toBeGreaterThan(old.generation);
    expect(await jobsOf(storage, account.id)).toEqual([newer]);
    // The superseded generation's holder stops: its progress, completion and release change nothing.
    expect(await peer.recordDeliveryProgress(refOf(old, 'b'), { cursor: 'dev-z', now: t + LEASE + 3, leaseMs: LEASE })).toBe(false);
    expect(await peer.completeDeliveryJob(refOf(old, 'b'))).toBe(false);
    await peer.releaseDeliveryJob(refOf(old, 'b'));
    expect(await storage.claimDeliveryJob(resource, old.generation, terms('a', t + LEASE + 3))).toBeNull();
    expect(await jobsOf(storage, account.id)).toEqual([newer]);
    expect(await storage.claimDeliveryJob(resource, newer.generation, terms('a', t + LEASE + 3))).toEqual({
      ...newer,
      leasedBy: 'a',
      leaseUntil: t + 2 * LEASE + 3,
    });
  });

  it('a start superseded before it reached every device is still owed above the start’s progress (startAbove)', async () => {
    const { storage, peer } = get();
    const t = hour(8);
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const resource = { accountId: account.id, kind: 'activity', slug: activity.slug } as const;
    let now = t;
    const update = async (state: 'IDLE' | 'ONGOING') => activityUpdate(either({ storage, peer }, now), account.id, activity.slug, state, ++now);
    const progress = async (job: DeliveryJob, cursor: string) => {
      expect(await storage.claimDeliveryJob(resource, job.generation, terms('a', ++now))).not.toBeNull();
      expect(await storage.recordDeliveryProgress(refOf(job, 'a'), { cursor, now: ++now, leaseMs: LEASE })).toBe(true);
    };

    const start = await update('ONGOING');
    expect(start).toMatchObject({ phase: 'start', startAbove: null });
    // Superseded before any device: every device is still owed the start.
    const first = await update('ONGOING');
    expect(first).toMatchObject({ phase: 'update', startAbove: '', cursor: '' });
    await progress(first, 'dev-c');
    // The start is owed above the later of the two: 'dev-c'.
    const second = await update('ONGOING');
    expect(second).toMatchObject({ phase: 'update', startAbove: 'dev-c' });
    await progress(second, 'dev-a');
    expect(await update('ONGOING')).toMatchObject({ phase: 'update', startAbove: 'dev-c' });
    const third = (await jobsOf(storage, account.id))[0]!;
    await progress(third, 'dev-x');
    expect(await update('ONGOING')).toMatchObject({ phase: 'update', startAbove: 'dev-x' });
    // An end and a new start owe nothing of an earlier start.
    expect(await update('IDLE')).toMatchObject({ phase: 'end', startAbove: null });
    const restart = await update('ONGOING');
    expect(restart).toMatchObject({ phase: 'start', startAbove: null });
    await progress(restart, 'dev-b');
    expect(await update('ONGOING')).toMatchObject({ phase: 'update', startAbove: 'dev-b' });
    // A finished job is not superseded: the next update owes no start.
    const done = (await jobsOf(storage, account.id))[0]!;
    expect(await storage.claimDeliveryJob(resource, done.generation, terms('a', ++now))).not.toBeNull();
    expect(await storage.completeDeliveryJob(refOf(done, 'a'))).toBe(true);
    expect(await update('ONGOING')).toMatchObject({ phase: 'update', startAbove: null });
  });

  it("a widget updated again inside its throttle window is due at the window's end, across handles", async () => {
    const { storage, peer } = get();
    const t = hour(9);
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const resource = { accountId: account.id, kind: 'widget', slug: widget.slug } as const;
    const first = await widgetUpdate(storage, account.id, widget.slug, t);
    expect(await storage.claimDeliveryJob(resource, first.generation, terms('a', t))).not.toBeNull(); // the window runs until t + W

    const second = await widgetUpdate(peer, account.id, widget.slug, t + 500);
    expect(second).toEqual({ ...fresh(resource, 'changed', t + 500, t + W), generation: expect.any(Number) });
    expect(await peer.claimDeliveryJob(resource, second.generation, terms('b', t + W - 1))).toBeNull();
    expect(await peer.claimDueDeliveryJobs({ ...terms('b', t + W - 1), limit: 10 })).toEqual([]);
    const [trailing] = await peer.claimDueDeliveryJobs({ ...terms('b', t + W), limit: 10 });
    expect(trailing).toEqual({ ...second, leasedBy: 'b', leaseUntil: t + W + LEASE });
    expect(await peer.completeDeliveryJob(refOf(second, 'b'))).toBe(true);

    // The window the trailing claim opened outlives its job.
    const third = await widgetUpdate(storage, account.id, widget.slug, t + W + 100);
    expect(third.dueAt).toBe(t + 2 * W);
    expect(await storage.claimDeliveryJob(resource, third.generation, terms('a', t + 2 * W))).not.toBeNull();
    expect(await storage.completeDeliveryJob(refOf(third, 'a'))).toBe(true);
    // Once it is over, an update is due at once.
    expect((await widgetUpdate(peer, account.id, widget.slug, t + 3 * W)).dueAt).toBe(t + 3 * W);

    // Activities have no window: an update right after a claim is due at once.
    const activity = await newActivityJob(storage, t + 4 * W);
    await storage.claimDeliveryJob(resourceOf(activity), activity.generation, terms('a', t + 4 * W));
    expect((await activityUpdate(peer, activity.accountId, activity.slug, 'ONGOING', t + 4 * W + 1)).dueAt).toBe(t + 4 * W + 1);
  });

  it('deleting the activity, the widget or the account removes its job (and the widget its window)', async () => {
    const { storage, peer } = get();
    const t = hour(10);
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const widget = await newWidget(storage, account.id);
    const activityJob = await activityUpdate(storage, account.id, activity.slug, 'ONGOING', t);
    const widgetJob = await widgetUpdate(storage, account.id, widget.slug, t + 1);
    expect(await storage.claimDeliveryJob(resourceOf(widgetJob), widgetJob.generation, terms('a', t + 1))).not.toBeNull();

    expect(await peer.deleteActivity(account.id, activity.slug)).toBe(true);
    expect((await jobsOf(storage, account.id)).map((job) => job.kind)).toEqual(['widget']);
    expect(await storage.claimDeliveryJob(resourceOf(activityJob), activityJob.generation, terms('a', t + 2))).toBeNull();
    expect(await peer.deleteWidget(account.id, widget.slug)).toBe(true);
    expect(await jobsOf(storage, account.id)).toEqual([]);
    expect(await storage.completeDeliveryJob(refOf(widgetJob, 'a'))).toBe(false);

    // A widget created again under the slug starts without a window: its update is due at once.
    await storage.putWidget({ accountId: account.id, slug: widget.slug, template: widget.template, staleAfter: null, privacy: 'visible' });
    expect((await widgetUpdate(storage, account.id, widget.slug, t + 3)).dueAt).toBe(t + 3);

    const other = await newAccount(storage);
    const otherActivity = await newActivity(storage, other.id);
    const otherWidget = await newWidget(storage, other.id);
    await activityUpdate(storage, other.id, otherActivity.slug, 'ONGOING', t);
    await widgetUpdate(storage, other.id, otherWidget.slug, t);
    expect(await peer.deleteAccount(account.id)).toBe(true);
    expect(await jobsOf(storage, account.id)).toEqual([]);
    expect(await jobsOf(storage, other.id)).toHaveLength(2);
    expect(await peer.deleteAccount(other.id)).toBe(true);
    expect(await jobsOf(storage, other.id)).toEqual([]);
  });

  it('a content write with claim terms returns its job leased to that instance; no other claimant gets it while the lease holds', async () => {
    const handles = get();
    const { storage, peer } = handles;
    const t = hour(12);
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const widget = await newWidget(storage, account.id);
    const activityResource = { accountId: account.id, kind: 'activity', slug: activity.slug } as const;
    const widgetResource = { accountId: account.id, kind: 'widget', slug: widget.slug } as const;

    const started = await claimingActivityUpdate(storage, account.id, activity.slug, t, 'a');
    expect(started).toEqual({ ...fresh(activityResource, 'start', t), generation: expect.any(Number), leasedBy: 'a', leaseUntil: t + LEASE });
    const changed = await claimingWidgetUpdate(peer, account.id, widget.slug, t, 'b');
    expect(changed).toEqual({ ...fresh(widgetResource, 'changed', t), generation: expect.any(Number), leasedBy: 'b', leaseUntil: t + LEASE });
    expect(await jobsOf(peer, account.id)).toEqual([started, changed]);

    // Held: neither the claimant itself nor racing claimants on both handles get it before the lease lapses.
    expect(await storage.claimDeliveryJob(activityResource, started.generation, terms('a', t))).toBeNull();
    expect(await raceClaims(handles, started, t + LEASE - 1, 20)).toEqual([]);
    expect(await raceClaims(handles, changed, t + LEASE - 1, 20)).toEqual([]);
    // The lease is the claimant's: its progress renews it, and it completes the job.
    expect(await storage.recordDeliveryProgress(refOf(started, 'a'), { cursor: 'dev-1', now: t + 1, leaseMs: LEASE })).toBe(true);
    expect(await peer.completeDeliveryJob(refOf(changed, 'b'))).toBe(true);

    // A write refused, or pushed nowhere, claims nothing and leaves the held job as it was.
    const claim = { instanceId: 'c', leaseMs: LEASE };
    expect(
      await peer.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(3), now: t + 2, guard: { template: 'countdown' }, claim }),
    ).toEqual({
      ok: false,
      reason: 'template_mismatch',
    });
    expect(
      await peer.setWidgetContent(account.id, widget.slug, {
        content: content(3),
        staleAfter: undefined,
        now: t + 2,
        guard: { tokenHash: randomHash() },
        claim,
      }),
    ).toEqual({
      ok: false,
      reason: 'credential_changed',
    });
    const idle = await newActivity(storage, account.id);
    expect(written(await peer.applyActivityUpdate(account.id, idle.slug, { state: 'IDLE', content: content(3), now: t + 2, claim }))).toMatchObject({
      transition: 'none',
      job: null,
    });
    expect(await jobsOf(storage, account.id)).toEqual([{ ...started, cursor: 'dev-1', leaseUntil: t + 1 + LEASE }]);
    expect(await storage.completeDeliveryJob(refOf(started, 'a'))).toBe(true);
  });

  it('a job claimed by its write is resumed by another claimant once the lease lapsed; the writer can then change nothing', async () => {
    const handles = get();
    const { storage, peer } = handles;
    const t = hour(13);
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const job = await claimingActivityUpdate(storage, account.id, activity.slug, t, 'a');
    expect(await storage.recordDeliveryProgress(refOf(job, 'a'), { cursor: 'dev-0100', now: t + 1_000, leaseMs: LEASE })).toBe(true);

    const [resumed, ...others] = await raceClaims(handles, job, t + 1_000 + LEASE, 20);
    expect(others).toEqual([]);
    expect(resumed).toEqual({ ...job, cursor: 'dev-0100', leasedBy: expect.stringMatching(/^racer-/), leaseUntil: t + 1_000 + 2 * LEASE, resumed: 1 });
    expect(await storage.recordDeliveryProgress(refOf(job, 'a'), { cursor: 'dev-0900', now: t + 1_001 + LEASE, leaseMs: LEASE })).toBe(false);
    expect(await storage.completeDeliveryJob(refOf(job, 'a'))).toBe(false);
    expect(await jobsOf(peer, account.id)).toEqual([resumed]);
    expect(await peer.completeDeliveryJob(refOf(job, resumed!.leasedBy!))).toBe(true);
  });

  it('a superseding write with claim terms claims the new generation for its own instance; the old holder stops', async () => {
    const handles = get();
    const { storage, peer } = handles;
    const t = hour(14);
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const resource = { accountId: account.id, kind: 'activity', slug: activity.slug } as const;
    const old = await claimingActivityUpdate(storage, account.id, activity.slug, t, 'a');
    expect(await storage.recordDeliveryProgress(refOf(old, 'a'), { cursor: 'dev-m', now: t + 1, leaseMs: LEASE })).toBe(true);

    // Superseded inside the old lease: the new generation is claimed by the writer, the start still owed above dev-m.
    const newer = await claimingActivityUpdate(peer, account.id, activity.slug, t + 2, 'b');
    expect(newer).toEqual({
      ...fresh(resource, 'update', t + 2),
      generation: expect.any(Number),
      startAbove: 'dev-m',
      leasedBy: 'b',
      leaseUntil: t + 2 + LEASE,
    });
    expect(newer.generation).toBeGreaterThan(old.generation);
    expect(await storage.recordDeliveryProgress(refOf(old, 'a'), { cursor: 'dev-z', now: t + 3, leaseMs: LEASE })).toBe(false);
    expect(await storage.claimDeliveryJob(resource, newer.generation, terms('a', t + 3))).toBeNull();
    expect(await jobsOf(storage, account.id)).toEqual([newer]);

    // Concurrent superseding writes on both handles: each claims its own generation; the job
    // left is the latest one, leased to its writer, and no claimant takes it from there.
    const jobs = await Promise.all(
      Array.from({ length: 12 }, (_, i) => claimingActivityUpdate(either(handles, i), account.id, activity.slug, t + 10, `writer-${i}`)),
    );
    jobs.forEach((job, i) => expect(job).toMatchObject({ leasedBy: `writer-${i}`, leaseUntil: t + 10 + LEASE, resumed: 0 }));
    const latest = jobs.reduce((a, b) => (b.generation > a.generation ? b : a));
    expect(new Set(jobs.map((job) => job.generation)).size).toBe(12);
    expect(await jobsOf(peer, account.id)).toEqual([latest]);
    expect(await raceClaims(handles, latest, t + 10 + LEASE - 1, 10)).toEqual([]);
    expect(await peer.completeDeliveryJob(refOf(latest, latest.leasedBy!))).toBe(true);
  });

  it("a widget write with claim terms inside the widget's throttle window is not claimed: its job waits for the window's end", async () => {
    const { storage, peer } = get();
    const t = hour(15);
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const resource = { accountId: account.id, kind: 'widget', slug: widget.slug } as const;
    // Claimed by its write: the window runs from then, as after `claimDeliveryJob`.
    const first = await claimingWidgetUpdate(storage, account.id, widget.slug, t, 'a');
    expect(first).toMatchObject({ dueAt: t, leasedBy: 'a', leaseUntil: t + LEASE });

    const second = await claimingWidgetUpdate(peer, account.id, widget.slug, t + 500, 'b');
    expect(second).toEqual({ ...fresh(resource, 'changed', t + 500, t + W), generation: expect.any(Number) });
    const third = await claimingWidgetUpdate(storage, account.id, widget.slug, t + W - 1, 'a');
    expect(third).toEqual({ ...fresh(resource, 'changed', t + W - 1, t + W), generation: expect.any(Number) });
    expect(await jobsOf(peer, account.id)).toEqual([third]);
    expect(await peer.claimDueDeliveryJobs({ ...terms('b', t + W - 1), limit: 10 })).toEqual([]);
    const [trailing] = await peer.claimDueDeliveryJobs({ ...terms('b', t + W), limit: 10 });
    expect(trailing).toEqual({ ...third, leasedBy: 'b', leaseUntil: t + W + LEASE });
    expect(await peer.completeDeliveryJob(refOf(third, 'b'))).toBe(true);

    // The trailing claim opened the next window: a write in it waits too; one after it is claimed at once.
    expect(await claimingWidgetUpdate(storage, account.id, widget.slug, t + W + 1, 'a')).toMatchObject({ dueAt: t + 2 * W, leasedBy: null, leaseUntil: 0 });
    const after = await claimingWidgetUpdate(peer, account.id, widget.slug, t + 2 * W, 'b');
    expect(after).toEqual({ ...fresh(resource, 'changed', t + 2 * W), generation: expect.any(Number), leasedBy: 'b', leaseUntil: t + 2 * W + LEASE });
    expect(await peer.completeDeliveryJob(refOf(after, 'b'))).toBe(true);
    // That claim, made by the write on the job's existing row, opened a window too.
    expect(await claimingWidgetUpdate(storage, account.id, widget.slug, t + 2 * W + 1, 'a')).toMatchObject({ dueAt: t + 3 * W, leasedBy: null, leaseUntil: 0 });
  });

  it('listDeliveryJobs lists pending jobs oldest first, by account and up to limit; deliveryJobStats counts them', async () => {
    const { storage, peer } = get();
    const t = hour(20); // the lowest hour: these are the oldest jobs of the store
    const before = await storage.deliveryJobStats();
    const a = await newAccount(storage);
    const [activity, widget] = [await newActivity(storage, a.id), await newWidget(storage, a.id)];
    const widgetJob = await widgetUpdate(storage, a.id, widget.slug, t + 2);
    const activityJob = await activityUpdate(storage, a.id, activity.slug, 'ONGOING', t + 1);
    const otherJob = await newWidgetJob(storage, t + 3);

    expect(await peer.listDeliveryJobs({ accountId: a.id, limit: 10 })).toEqual([activityJob, widgetJob]);
    expect(await peer.listDeliveryJobs({ accountId: a.id, limit: 1 })).toEqual([activityJob]);
    expect(await peer.listDeliveryJobs({ accountId: a.id, limit: 0 })).toEqual([]);
    expect(await peer.listDeliveryJobs({ accountId: uid('acct'), limit: 10 })).toEqual([]);
    expect(await peer.listDeliveryJobs({ limit: 3 })).toEqual([activityJob, widgetJob, otherJob]);
    expect(await peer.deliveryJobStats()).toEqual({ pending: before.pending + 3, oldestCreatedAt: t + 1 });

    // A claimed job is still pending; a done one is not.
    const claimed = await storage.claimDeliveryJob(resourceOf(activityJob), activityJob.generation, terms('a', t + 4));
    expect(await peer.listDeliveryJobs({ accountId: a.id, limit: 10 })).toEqual([claimed, widgetJob]);
    expect(await peer.deliveryJobStats()).toEqual({ pending: before.pending + 3, oldestCreatedAt: t + 1 });
    expect(await storage.completeDeliveryJob(refOf(activityJob, 'a'))).toBe(true);
    expect(await peer.deliveryJobStats()).toEqual({ pending: before.pending + 2, oldestCreatedAt: t + 2 });
    expect(await peer.listDeliveryJobs({ limit: 2 })).toEqual([widgetJob, otherJob]);
  });
}
