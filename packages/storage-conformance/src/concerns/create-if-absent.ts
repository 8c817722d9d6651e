import type { AbsentRecord, Storage } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, either, newAccount, newActivity, newDevice, newWidget, randomHash, uid } from '../harness.js';

/**
 * `createIfAbsent`, what a seed applied at start uses (docs/contract/deployment.md#env-seed): it creates
 * what is missing, never changes what exists, and concurrent creates of one key yield one
 * record, across instances.
 */
/** Creates per key in the race test: enough that a read-then-write store loses the race. */
const N = 40;
/** Rounds of the same-token race, each with a new record. */
const ROUNDS = 200;

/** What a new activity holds besides its definition. */
const NEW_ACTIVITY = { state: 'IDLE', live: false, content: null, updatedAt: null, channels: { production: null, sandbox: null } } as const;

export function createIfAbsentTests(get: GetHandles): void {
  it('creates each kind of record when absent, as its upsert would', async () => {
    const { storage } = get();
    const account = { id: uid('acct'), tokenHash: randomHash(), subscription: 'none' as const, activityQuota: 3 };
    expect(await storage.createIfAbsent({ kind: 'account', account })).toBe(true);
    expect(await storage.getAccount(account.id)).toEqual(account);
    expect(await storage.findAccountByTokenHash(account.tokenHash)).toEqual(account);

    const activity = {
      accountId: account.id,
      slug: uid('act'),
      template: 'progress',
      dismissalDelayS: 7,
      delivery: 'broadcast' as const,
      frequentUpdates: true,
    };
    expect(await storage.createIfAbsent({ kind: 'activity', definition: activity })).toBe(true);
    expect(await storage.getActivity(account.id, activity.slug)).toEqual({ ...activity, ...NEW_ACTIVITY });

    const widget = { accountId: account.id, slug: uid('wid'), template: 'gauge', staleAfter: 120, privacy: 'hidden_when_locked' as const };
    expect(await storage.createIfAbsent({ kind: 'widget', definition: widget })).toBe(true);
    expect(await storage.getWidget(account.id, widget.slug)).toEqual({ ...widget, content: null, updatedAt: null });
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual({});

    const device = { id: uid('dev'), accountId: account.id, tokenHash: randomHash() };
    expect(await storage.createIfAbsent({ kind: 'device', device })).toBe(true);
    expect(await storage.getDevice(device.id)).toEqual(device);
    expect(await storage.findDeviceByTokenHash(device.tokenHash)).toEqual(device);
    expect(await storage.listAccountDevices(account.id)).toEqual([device]);
  });

  it('leaves an existing account as it is: rotated token, ended subscription and quota stay', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage, { subscription: 'active', activityQuota: 5 });
    const rotated = randomHash();
    expect(await storage.setAccountTokenHash(account.id, rotated)).toBe(true);
    expect(await storage.updateAccount(account.id, { subscription: 'none', activityQuota: 1 })).toBe(true);
    const changed = { ...account, tokenHash: rotated, subscription: 'none' as const, activityQuota: 1 };

    for (const handle of [storage, peer]) {
      expect(await handle.createIfAbsent({ kind: 'account', account })).toBe(false);
      expect(await handle.createIfAbsent({ kind: 'account', account: { ...account, tokenHash: randomHash() } })).toBe(false);
    }
    expect(await storage.getAccount(account.id)).toEqual(changed);
    expect(await storage.findAccountByTokenHash(account.tokenHash)).toBeNull();
    expect(await storage.findAccountByTokenHash(rotated)).toEqual(changed);
  });

  it('leaves an existing activity as it is: definition, state, liveness and content stay', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id, 'progress');
    const content = { template: 'progress', progress: { value: 0.5 } };
    expect((await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content, now: T0 })).ok).toBe(true);
    const before = await storage.getActivity(account.id, activity.slug);
    expect(before).toMatchObject({ live: true, state: 'ONGOING', content });

    for (const template of ['progress', 'countdown']) {
      const definition = { accountId: account.id, slug: activity.slug, template, dismissalDelayS: 999, delivery: 'broadcast' as const, frequentUpdates: true };
      expect(await storage.createIfAbsent({ kind: 'activity', definition })).toBe(false);
    }
    expect(await storage.getActivity(account.id, activity.slug)).toEqual(before);
  });

  it('leaves an existing widget as it is: stale_after from a PATCH, content, privacy, shares and webhook map stay', async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const guest = await newAccount(storage);
    const widget = await newWidget(storage, owner.id, 'switchboard');
    const guestPhone = await newDevice(storage, guest.id);
    const content = { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] };
    await storage.setWidgetContent(owner.id, widget.slug, { content, staleAfter: 3600, now: T0 });
    expect(await storage.shareWidget(owner.id, widget.slug, guestPhone.id)).toBe(true);
    expect(await storage.setWebhookMap(owner.id, widget.slug, { bell: { url: 'https://example.com/' } })).toBe(true);
    const before = await storage.getWidget(owner.id, widget.slug);
    expect(before).toMatchObject({ staleAfter: 3600, content });

    for (const template of ['switchboard', 'gauge']) {
      const definition = { accountId: owner.id, slug: widget.slug, template, staleAfter: null, privacy: 'hidden_when_locked' as const };
      expect(await storage.createIfAbsent({ kind: 'widget', definition })).toBe(false);
    }
    expect(await storage.getWidget(owner.id, widget.slug)).toEqual(before);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([guestPhone.id]);
    expect(await storage.getWebhookMap(owner.id, widget.slug)).toEqual({ bell: { url: 'https://example.com/' } });
  });

  it('leaves an existing device as it is, even when asked for another account', async () => {
    const { storage } = get();
    const a = await newAccount(storage);
    const b = await newAccount(storage);
    const device = await newDevice(storage, a.id);
    const retokened = { ...device, tokenHash: randomHash() };
    await storage.upsertDevice(retokened);

    const other = { id: device.id, accountId: b.id, tokenHash: randomHash() };
    expect(await storage.createIfAbsent({ kind: 'device', device: device })).toBe(false);
    expect(await storage.createIfAbsent({ kind: 'device', device: other })).toBe(false);
    expect(await storage.getDevice(device.id)).toEqual(retokened);
    expect(await storage.findDeviceByTokenHash(device.tokenHash)).toBeNull();
    expect(await storage.findDeviceByTokenHash(other.tokenHash)).toBeNull();
    expect(await storage.listAccountDevices(b.id)).toEqual([]);
  });

  it('sharing an already shared widget again changes nothing', async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const guest = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const phone = await newDevice(storage, guest.id);
    expect(await storage.shareWidget(owner.id, widget.slug, phone.id)).toBe(true);
    expect(await storage.shareWidget(owner.id, widget.slug, phone.id)).toBe(true);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([phone.id]);
  });

  it('refuses an account or device whose token hash another one holds, and creates nothing', async () => {
    const { storage } = get();
    const holder = await newAccount(storage);
    const device = await newDevice(storage, holder.id);
    const account = { id: uid('acct'), tokenHash: holder.tokenHash, subscription: 'active' as const, activityQuota: 5 };
    await expect(storage.createIfAbsent({ kind: 'account', account })).rejects.toThrow('token hash');
    expect(await storage.getAccount(account.id)).toBeNull();
    const twin = { id: uid('dev'), accountId: holder.id, tokenHash: device.tokenHash };
    await expect(storage.createIfAbsent({ kind: 'device', device: twin })).rejects.toThrow('token hash');
    expect(await storage.getDevice(twin.id)).toBeNull();
  });

  it("concurrent creates of one key, spread over two instances, create exactly one record: the winner's", async () => {
    const handles = get();
    const owner = await newAccount(handles.storage);
    const id = uid('race');
    const race = async (make: (i: number) => AbsentRecord, read: (s: Storage) => Promise<unknown>, expected: (i: number) => unknown) => {
      const records = Array.from({ length: N }, (_, i) => make(i));
      const results = await Promise.all(records.map((record, i) => either(handles, i).createIfAbsent(record)));
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true);
      expect(await read(handles.storage)).toEqual(expected(winner));
      expect(await read(handles.peer)).toEqual(expected(winner));
    };
    const accounts = Array.from({ length: N }, (_, i) => ({ id, tokenHash: randomHash(), subscription: 'active' as const, activityQuota: i }));
    await race(
      (i) => ({ kind: 'account', account: accounts[i]! }),
      (s) => s.getAccount(id),
      (i) => accounts[i],
    );

    const activities = Array.from({ length: N }, (_, i) => ({
      accountId: owner.id,
      slug: id,
      template: 'progress',
      dismissalDelayS: i,
      delivery: i % 2 === 0 ? ('tokens' as const) : ('broadcast' as const),
      frequentUpdates: i % 3 === 0,
    }));
    await race(
      (i) => ({ kind: 'activity', definition: activities[i]! }),
      (s) => s.getActivity(owner.id, id),
      (i) => ({ ...activities[i], ...NEW_ACTIVITY }),
    );

    const widgets = Array.from({ length: N }, (_, i) => ({
      accountId: owner.id,
      slug: id,
      template: 'gauge',
      staleAfter: 60 + i,
      privacy: 'visible' as const,
    }));
    await race(
      (i) => ({ kind: 'widget', definition: widgets[i]! }),
      (s) => s.getWidget(owner.id, id),
      (i) => ({ ...widgets[i], content: null, updatedAt: null }),
    );

    const devices = Array.from({ length: N }, () => ({ id, accountId: owner.id, tokenHash: randomHash() }));
    await race(
      (i) => ({ kind: 'device', device: devices[i]! }),
      (s) => s.getDevice(id),
      (i) => devices[i],
    );
    expect((await handles.storage.listAccountDevices(owner.id)).map((d) => d.id)).toEqual([id]);
  });

  it('concurrent creates of one record with one token (two instances, one seed) create it once and refuse none', async () => {
    const handles = get();
    const account = { id: uid('same'), tokenHash: randomHash(), subscription: 'active' as const, activityQuota: 2 };
    const accountResults = await Promise.all(Array.from({ length: N }, (_, i) => either(handles, i).createIfAbsent({ kind: 'account', account })));
    expect(accountResults.filter(Boolean)).toHaveLength(1);
    // The race is narrow (both inserts past the key check at once), so it is run many times.
    for (let round = 0; round < ROUNDS; round++) {
      const device = { id: uid('same-phone'), accountId: account.id, tokenHash: randomHash() };
      const results = await Promise.all(
        [handles.storage, handles.peer, handles.storage, handles.peer].map((s) => s.createIfAbsent({ kind: 'device', device })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      expect(await handles.peer.findDeviceByTokenHash(device.tokenHash)).toEqual(device);
    }
  });
}
