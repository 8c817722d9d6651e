import type { AccountRecord } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, newAccount, newActivity, newDevice, newEvent, newWidget, randomHash, uid } from '../harness.js';

export function accountTests(get: GetHandles): void {
  it('upsertAccount creates an account that getAccount returns; unknown ids give null', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { activityQuota: 7, subscription: 'none' });
    expect(await storage.getAccount(account.id)).toEqual(account);
    expect(await storage.getAccount(uid('missing'))).toBeNull();
  });

  it('account ids are compared exactly (case-sensitive)', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { id: uid('case') });
    expect(await storage.getAccount(account.id.toUpperCase())).toBeNull();
    expect(await storage.getAccount(`${account.id} `)).toBeNull();
  });

  it('upsertAccount replaces the whole record, and the replaced token hash stops matching', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const replaced = { id: account.id, tokenHash: randomHash(), subscription: 'none' as const, activityQuota: 1 };
    await storage.upsertAccount(replaced);
    expect(await storage.getAccount(account.id)).toEqual(replaced);
    expect(await storage.findAccountByTokenHash(account.tokenHash)).toBeNull();
    expect(await storage.findAccountByTokenHash(replaced.tokenHash)).toEqual(replaced);
  });

  it('findAccountByTokenHash finds the account by its hash only', async () => {
    const { storage } = get();
    const a = await newAccount(storage);
    const b = await newAccount(storage);
    expect(await storage.findAccountByTokenHash(a.tokenHash)).toEqual(a);
    expect(await storage.findAccountByTokenHash(b.tokenHash)).toEqual(b);
    expect(await storage.findAccountByTokenHash(randomHash())).toBeNull();
    expect(await storage.findAccountByTokenHash(a.tokenHash.toUpperCase())).toBeNull();
  });

  it('setAccountTokenHash rotates: the old hash stops matching at once, the new one matches', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const rotated = randomHash();
    expect(await storage.setAccountTokenHash(account.id, rotated)).toBe(true);
    // Read through the other handle too: the old token must not linger anywhere.
    for (const handle of [storage, peer]) {
      expect(await handle.findAccountByTokenHash(account.tokenHash)).toBeNull();
      expect(await handle.findAccountByTokenHash(rotated)).toEqual({ ...account, tokenHash: rotated });
    }
    expect(await storage.getAccount(account.id)).toEqual({ ...account, tokenHash: rotated });
  });

  it('setAccountTokenHash on an unknown account is false and makes the hash match nothing', async () => {
    const { storage } = get();
    const hash = randomHash();
    expect(await storage.setAccountTokenHash(uid('missing'), hash)).toBe(false);
    expect(await storage.findAccountByTokenHash(hash)).toBeNull();
  });

  it('updateAccount changes only the fields given; false for an unknown account', async () => {
    const { storage } = get();
    const account = await newAccount(storage, { subscription: 'active', activityQuota: 3 });
    expect(await storage.updateAccount(account.id, { subscription: 'none' })).toBe(true);
    expect(await storage.getAccount(account.id)).toEqual({ ...account, subscription: 'none', activityQuota: 3 });
    expect(await storage.updateAccount(account.id, { activityQuota: 9 })).toBe(true);
    expect(await storage.getAccount(account.id)).toEqual({ ...account, subscription: 'none', activityQuota: 9 });
    expect(await storage.updateAccount(account.id, { subscription: 'active', activityQuota: 0 })).toBe(true);
    expect(await storage.getAccount(account.id)).toEqual({ ...account, subscription: 'active', activityQuota: 0 });
    expect(await storage.findAccountByTokenHash(account.tokenHash)).toEqual({ ...account, activityQuota: 0 });
    expect(await storage.updateAccount(uid('missing'), { activityQuota: 1 })).toBe(false);
    expect(await storage.getAccount(uid('missing'))).toBeNull();
  });

  it('listAccounts pages through the accounts in id order (code units), each page after the last id of the one before', async () => {
    const { storage, peer } = get();
    // Other tests share the store: the accounts of this one are the ids under a fresh prefix.
    const prefix = uid('list');
    const created: AccountRecord[] = [];
    for (const suffix of ['b', 'B', 'a', 'a0', '_', 'Z9']) created.push(await newAccount(storage, { id: `${prefix}-${suffix}` }));
    const expected = created.map((account) => account.id).sort();
    expect(expected.map((id) => id.slice(prefix.length + 1))).toEqual(['B', 'Z9', '_', 'a', 'a0', 'b']);

    const seen: AccountRecord[] = [];
    let after: string = prefix;
    for (let round = 0; round < expected.length; round += 1) {
      const page = await peer.listAccounts({ after, limit: 2 });
      expect(page.length).toBeLessThanOrEqual(2);
      const ours = page.filter((account) => account.id.startsWith(`${prefix}-`));
      seen.push(...ours);
      if (ours.length < page.length || page.length < 2) break;
      after = page[page.length - 1]!.id;
    }
    expect(seen.map((account) => account.id)).toEqual(expected);
    for (const account of seen) expect(account).toEqual(created.find((c) => c.id === account.id));

    expect(await storage.listAccounts({ after: expected[2]!, limit: 1 })).toEqual([created.find((c) => c.id === expected[3])]);
    expect(await storage.listAccounts({ after: expected[0]!, limit: 0 })).toEqual([]);
    const first = await storage.listAccounts({ after: null, limit: 1 });
    expect(first).toHaveLength(1);
    expect(await storage.listAccounts({ after: `${prefix}-b`, limit: 3 }).then((page) => page.filter((a) => a.id.startsWith(`${prefix}-`)))).toEqual([]);
    await storage.deleteAccount(`${prefix}-a`);
    expect((await storage.listAccounts({ after: `${prefix}-_`, limit: 1 }))[0]?.id).toBe(`${prefix}-a0`);
  });

  it('deleteAccount is true once, then false; the account and its token are gone', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    expect(await storage.deleteAccount(account.id)).toBe(true);
    expect(await storage.deleteAccount(account.id)).toBe(false);
    expect(await storage.getAccount(account.id)).toBeNull();
    expect(await storage.findAccountByTokenHash(account.tokenHash)).toBeNull();
  });

  it('deleteAccount cascades to activities, widgets, devices, shares naming its devices, events and event-stream slots', async () => {
    const { storage } = get();
    const gone = await newAccount(storage);
    const other = await newAccount(storage);
    const activity = await newActivity(storage, gone.id);
    const widget = await newWidget(storage, gone.id);
    expect(await storage.setWebhookMap(gone.id, widget.slug, { '*': { url: 'https://example.com/' } })).toBe(true);
    const goneDevice = await newDevice(storage, gone.id);
    const otherDevice = await newDevice(storage, other.id);
    const otherWidget = await newWidget(storage, other.id);
    const thirdDevice = await newDevice(storage, (await newAccount(storage)).id);
    expect(await storage.shareWidget(other.id, otherWidget.slug, goneDevice.id)).toBe(true);
    expect(await storage.shareWidget(other.id, otherWidget.slug, thirdDevice.id)).toBe(true);
    expect(await storage.shareWidget(gone.id, widget.slug, otherDevice.id)).toBe(true);
    await storage.appendEvent(gone.id, newEvent(T0 + 60_000));
    await storage.appendEvent(other.id, newEvent(T0 + 60_000));
    expect(await storage.acquireEventStreamSlot(gone.id, uid('slot'), { max: 1, now: T0, ttlMs: 60_000 })).toBe(true);
    expect(await storage.acquireEventStreamSlot(other.id, uid('slot'), { max: 1, now: T0, ttlMs: 60_000 })).toBe(true);

    expect(await storage.deleteAccount(gone.id)).toBe(true);

    expect(await storage.getActivity(gone.id, activity.slug)).toBeNull();
    expect(await storage.getWidget(gone.id, widget.slug)).toBeNull();
    expect(await storage.getWebhookMap(gone.id, widget.slug)).toBeNull();
    expect(await storage.listWidgetShares(gone.id, widget.slug)).toEqual([]);
    expect(await storage.getDevice(goneDevice.id)).toBeNull();
    expect(await storage.findDeviceByTokenHash(goneDevice.tokenHash)).toBeNull();
    expect(await storage.listAccountDevices(gone.id)).toEqual([]);
    expect(await storage.readEvents(gone.id, { after: 0, now: T0, limit: 100 })).toEqual([]);
    // The slot held by the deleted account is free again.
    expect(await storage.acquireEventStreamSlot(gone.id, uid('slot'), { max: 1, now: T0, ttlMs: 60_000 })).toBe(true);

    // The other account keeps everything of its own, minus the share naming the deleted device.
    expect(await storage.getAccount(other.id)).toEqual(other);
    expect(await storage.getDevice(otherDevice.id)).toEqual(otherDevice);
    expect(await storage.listWidgetShares(other.id, otherWidget.slug)).toEqual([thirdDevice.id]);
    expect((await storage.readEvents(other.id, { after: 0, now: T0, limit: 100 })).map((e) => e.position)).toEqual([1]);
    expect(await storage.acquireEventStreamSlot(other.id, uid('slot'), { max: 1, now: T0, ttlMs: 60_000 })).toBe(false);
  });
}
