import { WIDGET_PUSH_WINDOW_MS, type ActivityUpdateResult, type Storage, type WidgetContentResult } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, content, newAccount, newActivity, newDevice, newWidget, uid, written } from '../harness.js';

const LEASE = 30_000;

/** A write's claim terms for `instanceId`. */
const claim = (instanceId: string) => ({ instanceId, leaseMs: LEASE });

/** Ascending by UTF-16 code units, the order a job walks its devices (not the locale's). */
const byCodeUnits = (ids: readonly string[]): string[] => [...ids].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

/**
 * Device ids with one random prefix whose code-unit order differs from a locale's: `B` and
 * `Z` before `_` before `a` (a locale puts `_` first and `a` before `B`), `a-z` before `aa`
 * (a locale ignores the hyphen), `~` last.
 */
const awkwardIds = (): string[] => {
  const prefix = uid('dev');
  return ['a', 'B', '_', 'Z', 'aa', 'a-z', '0', '~', 'b.c'].map((tail) => `${prefix}${tail}`);
};

type WrittenResult = Extract<ActivityUpdateResult | WidgetContentResult, { ok: true }>;

/**
 * The write claimed its job for `instanceId`; its `audience`, when the store returns one
 * (optional in the contract: nothing more to check without it), is `expected`.
 */
function expectClaimedAudience(result: WrittenResult, instanceId: string, expected: readonly string[]): void {
  expect(result.job?.leasedBy).toBe(instanceId);
  if (result.audience === undefined) return;
  expect(result.audience).toEqual(expected);
}

/** What `audienceOf` in the core reads for a widget: the account's devices and the widget's shares, merged. */
async function readWidgetAudience(storage: Storage, accountId: string, slug: string): Promise<string[]> {
  const [own, shared] = await Promise.all([storage.listAccountDeviceIds(accountId), storage.listWidgetShares(accountId, slug)]);
  return byCodeUnits([...new Set([...own, ...shared])]);
}

const activityWrite = async (storage: Storage, accountId: string, slug: string, now: number, instanceId?: string) =>
  written(
    await storage.applyActivityUpdate(accountId, slug, {
      state: 'ONGOING',
      content: content(now),
      now,
      claim: instanceId === undefined ? undefined : claim(instanceId),
    }),
  );

const widgetWrite = async (storage: Storage, accountId: string, slug: string, now: number, instanceId?: string) =>
  written(
    await storage.setWidgetContent(accountId, slug, {
      content: content(now),
      staleAfter: undefined,
      now,
      claim: instanceId === undefined ? undefined : claim(instanceId),
    }),
  );

/**
 * The audience a content write returns with the job it claimed (core's `WrittenAudience`,
 * docs/decisions/0119-audience-in-the-write.md): optional, but when returned, exactly the
 * devices the job walks (docs/contract/durable-delivery.md#durable-job-resume), as the reads
 * answer them right after the write; and never returned with a job the write did not claim.
 */
export function writtenAudienceTests(get: GetHandles): void {
  it("an activity write that claims its job returns the account's devices in code-unit order, none of another account", async () => {
    const { storage, peer } = get();
    const [account, other] = [await newAccount(storage), await newAccount(storage)];
    const ids = awkwardIds();
    for (const id of ids) await newDevice(storage, account.id, id);
    await newDevice(storage, other.id, `${ids[0]}x`); // between the account's own ids, in another account
    const activity = await newActivity(storage, account.id);
    const started = await activityWrite(storage, account.id, activity.slug, T0, 'a');
    expect(await peer.listAccountDeviceIds(account.id)).toEqual(byCodeUnits(ids));
    expectClaimedAudience(started, 'a', byCodeUnits(ids));

    // Read by each write: a device registered and one removed since show in the next one,
    // claimed by another instance through the other handle.
    const added = await newDevice(storage, account.id, `${ids[0]}A`);
    await storage.deleteDevice(ids[1]!);
    const updated = await activityWrite(peer, account.id, activity.slug, T0 + 1, 'b');
    const now = byCodeUnits([...ids.filter((id) => id !== ids[1]), added.id]);
    expect(await storage.listAccountDeviceIds(account.id)).toEqual(now);
    expectClaimedAudience(updated, 'b', now);
  });

  it("a widget write that claims its job returns the account's devices and the widget's shares merged, each once, in code-unit order", async () => {
    const { storage, peer } = get();
    const [account, other] = [await newAccount(storage), await newAccount(storage)];
    const ids = awkwardIds();
    for (const id of ids) await newDevice(storage, account.id, id);
    const widget = await newWidget(storage, account.id);
    const otherWidget = await newWidget(storage, account.id);
    // Devices of another account: one shared with the widget (between the own ids in order),
    // one shared with another widget of the account only, one not shared at all.
    const shared = await newDevice(storage, other.id, `${ids[0]}C`);
    const sharedElsewhere = await newDevice(storage, other.id, `${ids[0]}D`);
    await newDevice(storage, other.id, `${ids[0]}E`);
    expect(await storage.shareWidget(account.id, widget.slug, shared.id)).toBe(true);
    expect(await storage.shareWidget(account.id, otherWidget.slug, sharedElsewhere.id)).toBe(true);

    const expected = byCodeUnits([...ids, shared.id]);
    const result = await widgetWrite(storage, account.id, widget.slug, T0, 'a');
    expect(await readWidgetAudience(peer, account.id, widget.slug)).toEqual(expected);
    expectClaimedAudience(result, 'a', expected);

    // The other widget's audience has its own share, not this one's.
    const elsewhere = await widgetWrite(peer, account.id, otherWidget.slug, T0, 'b');
    const expectedElsewhere = byCodeUnits([...ids, sharedElsewhere.id]);
    expect(await readWidgetAudience(storage, account.id, otherWidget.slug)).toEqual(expectedElsewhere);
    expectClaimedAudience(elsewhere, 'b', expectedElsewhere);

    // An activity of the same account reaches its own devices only, never a widget's share.
    const activity = await newActivity(storage, account.id);
    expectClaimedAudience(await activityWrite(storage, account.id, activity.slug, T0, 'a'), 'a', byCodeUnits(ids));
  });

  it('an account without devices gets [], and a widget of it only its shares', async () => {
    const { storage } = get();
    const [account, other] = [await newAccount(storage), await newAccount(storage)];
    await newDevice(storage, other.id);
    const activity = await newActivity(storage, account.id);
    const [bare, shared] = [await newWidget(storage, account.id), await newWidget(storage, account.id)];
    const guest = await newDevice(storage, other.id);
    expect(await storage.shareWidget(account.id, shared.slug, guest.id)).toBe(true);

    expectClaimedAudience(await activityWrite(storage, account.id, activity.slug, T0, 'a'), 'a', []);
    expectClaimedAudience(await widgetWrite(storage, account.id, bare.slug, T0, 'a'), 'a', []);
    expectClaimedAudience(await widgetWrite(storage, account.id, shared.slug, T0, 'a'), 'a', [guest.id]);
  });

  it('no audience with a job the write did not claim: no claim terms, a widget inside its throttle window, an activity pushed nowhere', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const other = await newAccount(storage);
    await newDevice(storage, account.id);
    const activity = await newActivity(storage, account.id);
    const widget = await newWidget(storage, account.id);
    expect(await storage.shareWidget(account.id, widget.slug, (await newDevice(storage, other.id)).id)).toBe(true);

    const unclaimed = await activityWrite(storage, account.id, activity.slug, T0);
    expect(unclaimed.job?.leasedBy).toBeNull();
    expect(unclaimed.audience).toBeUndefined();
    const unclaimedWidget = await widgetWrite(storage, account.id, widget.slug, T0);
    expect(unclaimedWidget.job.leasedBy).toBeNull();
    expect(unclaimedWidget.audience).toBeUndefined();

    // The first claiming write opens the window; a write inside it, from either handle,
    // leaves a job due at the window's end, unleased, and so no audience.
    expect((await widgetWrite(storage, account.id, widget.slug, T0 + 1, 'a')).job.leasedBy).toBe('a');
    const held = await widgetWrite(peer, account.id, widget.slug, T0 + 500, 'b');
    expect(held.job).toMatchObject({ leasedBy: null, leaseUntil: 0, dueAt: T0 + 1 + WIDGET_PUSH_WINDOW_MS });
    expect(held.audience).toBeUndefined();

    // An update that ends nothing live is pushed nowhere: no job, no audience.
    const ended = written(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'IDLE', content: content(1), now: T0 + 1, claim: claim('a') }));
    expect(ended.transition).toBe('end');
    const none = written(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'IDLE', content: content(2), now: T0 + 2, claim: claim('a') }));
    expect(none).toMatchObject({ transition: 'none', job: null });
    expect(none.audience).toBeUndefined();
  });
}
