import type { ActivityUpdateResult, Storage } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, content, count, either, newAccount, newActivity } from '../harness.js';

const N = 50;
const Q = 10;

const started = (r: ActivityUpdateResult) => r.ok && r.transition === 'start';
const refused = (r: ActivityUpdateResult) => !r.ok && r.reason === 'quota_exceeded';

async function liveSlugs(storage: Storage, accountId: string, slugs: string[]): Promise<string[]> {
  const records = await Promise.all(slugs.map((slug) => storage.getActivity(accountId, slug)));
  return records.filter((r) => r?.live === true).map((r) => r!.slug);
}

/** An account with quota Q and N not-live activities. */
async function setup(storage: Storage): Promise<{ accountId: string; slugs: string[] }> {
  const account = await newAccount(storage, { activityQuota: Q });
  const slugs: string[] = [];
  for (let i = 0; i < N; i++) slugs.push((await newActivity(storage, account.id)).slug);
  return { accountId: account.id, slugs };
}

export function activityQuotaTests(get: GetHandles): void {
  it(`${N} concurrent starts from two handles against quota ${Q}: exactly ${Q} start, ${N - Q} quota_exceeded, ${Q} live`, async () => {
    const handles = get();
    const { accountId, slugs } = await setup(handles.storage);
    const results = await Promise.all(
      slugs.map((slug, i) => either(handles, i).applyActivityUpdate(accountId, slug, { state: 'ONGOING', content: content(i), now: T0 })),
    );
    expect(count(results, started)).toBe(Q);
    expect(count(results, refused)).toBe(N - Q);
    const winners = slugs.filter((_, i) => started(results[i]!));
    expect((await liveSlugs(handles.peer, accountId, slugs)).sort()).toEqual([...winners].sort());
  });

  it('at quota, ending one frees exactly one slot for concurrent starters', async () => {
    const handles = get();
    const { accountId, slugs } = await setup(handles.storage);
    const first = await Promise.all(
      slugs.map((slug, i) => either(handles, i).applyActivityUpdate(accountId, slug, { state: 'ONGOING', content: content(i), now: T0 })),
    );
    const winners = slugs.filter((_, i) => started(first[i]!));
    const losers = slugs.filter((_, i) => !started(first[i]!));
    const ended = await handles.peer.applyActivityUpdate(accountId, winners[0]!, { state: 'IDLE', content: content(0), now: T0 + 1 });
    expect(ended.ok && ended.transition).toBe('end');
    const second = await Promise.all(
      losers.map((slug, i) => either(handles, i).applyActivityUpdate(accountId, slug, { state: 'ONGOING', content: content(i), now: T0 + 2 })),
    );
    expect(count(second, started)).toBe(1);
    expect(count(second, refused)).toBe(losers.length - 1);
    expect(await liveSlugs(handles.storage, accountId, slugs)).toHaveLength(Q);
  });

  it('updating already-live activities at quota consumes nothing, also mixed with concurrent new starts', async () => {
    const handles = get();
    const { accountId, slugs } = await setup(handles.storage);
    const live = slugs.slice(0, Q);
    const fresh = slugs.slice(Q, 2 * Q);
    for (const slug of live) {
      const r = await handles.storage.applyActivityUpdate(accountId, slug, { state: 'ONGOING', content: content(0), now: T0 });
      expect(r.ok && r.transition).toBe('start');
    }
    const mixed = [...live, ...fresh, ...live];
    const results = await Promise.all(
      mixed.map((slug, i) => either(handles, i).applyActivityUpdate(accountId, slug, { state: 'ONGOING', content: content(i), now: T0 + 1 })),
    );
    const updates = results.filter((r) => r.ok && r.transition === 'update');
    expect(updates).toHaveLength(2 * Q);
    expect(count(results.slice(Q, 2 * Q), refused)).toBe(Q);
    expect(count(results, started)).toBe(0);
    expect((await liveSlugs(handles.peer, accountId, slugs)).sort()).toEqual([...live].sort());
  });

  it('concurrent ONGOING updates of one not-live activity: exactly one start, the others update, none refused', async () => {
    const handles = get();
    const account = await newAccount(handles.storage, { activityQuota: 1 });
    const activity = await newActivity(handles.storage, account.id);
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        either(handles, i).applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(i), now: T0 }),
      ),
    );
    expect(count(results, started)).toBe(1);
    expect(count(results, (r) => r.ok && r.transition === 'update')).toBe(19);
    expect((await handles.peer.getActivity(account.id, activity.slug))?.live).toBe(true);
  });

  it('concurrent ends and starts never exceed the quota', async () => {
    const handles = get();
    const { accountId, slugs } = await setup(handles.storage);
    const live = slugs.slice(0, Q);
    for (const slug of live) {
      await handles.storage.applyActivityUpdate(accountId, slug, { state: 'ONGOING', content: content(0), now: T0 });
    }
    const ends = live
      .slice(0, 5)
      .map((slug, i) => either(handles, i).applyActivityUpdate(accountId, slug, { state: 'IDLE', content: content(0), now: T0 + 1 }));
    const starts = slugs
      .slice(Q)
      .map((slug, i) => either(handles, i + 1).applyActivityUpdate(accountId, slug, { state: 'ONGOING', content: content(0), now: T0 + 1 }));
    const [endResults, startResults] = await Promise.all([Promise.all(ends), Promise.all(starts)]);
    expect(count(endResults, (r) => r.ok && r.transition === 'end')).toBe(5);
    const startedCount = count(startResults, started);
    expect(startedCount).toBeLessThanOrEqual(5);
    expect(count(startResults, refused)).toBe(startResults.length - startedCount);
    expect(await liveSlugs(handles.peer, accountId, slugs)).toHaveLength(Q - 5 + startedCount);
  });
}
