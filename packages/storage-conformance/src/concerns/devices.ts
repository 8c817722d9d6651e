import { expect, it } from 'vitest';
import { type GetHandles, newAccount, newDevice, newWidget, randomHash, uid } from '../harness.js';

export function deviceTests(get: GetHandles): void {
  it('upsertDevice registers a device that getDevice and findDeviceByTokenHash return', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    expect(await storage.getDevice(device.id)).toEqual(device);
    expect(await storage.findDeviceByTokenHash(device.tokenHash)).toEqual(device);
    expect(await storage.getDevice(uid('missing'))).toBeNull();
    expect(await storage.getDevice(device.id.toUpperCase())).toBeNull();
    expect(await storage.findDeviceByTokenHash(randomHash())).toBeNull();
    // Device and account tokens live in separate namespaces.
    expect(await storage.findAccountByTokenHash(device.tokenHash)).toBeNull();
    expect(await storage.findDeviceByTokenHash(account.tokenHash)).toBeNull();
  });

  it('upsertDevice replaces: the old token hash stops matching, and a moved device is listed under its new account only', async () => {
    const { storage } = get();
    const first = await newAccount(storage);
    const second = await newAccount(storage);
    const device = await newDevice(storage, first.id);
    const replaced = { id: device.id, accountId: second.id, tokenHash: randomHash() };
    await storage.upsertDevice(replaced);
    expect(await storage.getDevice(device.id)).toEqual(replaced);
    expect(await storage.findDeviceByTokenHash(device.tokenHash)).toBeNull();
    expect(await storage.findDeviceByTokenHash(replaced.tokenHash)).toEqual(replaced);
    expect(await storage.listAccountDevices(first.id)).toEqual([]);
    expect(await storage.listAccountDevices(second.id)).toEqual([replaced]);
    expect(await storage.listAccountDeviceIds(first.id)).toEqual([]);
    expect(await storage.listAccountDeviceIds(second.id)).toEqual([replaced.id]);
  });

  it("listAccountDevices and listAccountDeviceIds list the account's devices only, sorted by id in code-unit order", async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const other = await newAccount(storage);
    const stem = uid('dev');
    const devices = [];
    for (const suffix of ['b', 'C', 'a', 'a1', 'B']) devices.push(await newDevice(storage, account.id, `${stem}-${suffix}`));
    await newDevice(storage, other.id);
    const listed = await storage.listAccountDevices(account.id);
    expect(listed.map((d) => d.id)).toEqual(['B', 'C', 'a', 'a1', 'b'].map((s) => `${stem}-${s}`));
    expect(listed).toEqual(expect.arrayContaining(devices));
    expect(await storage.listAccountDeviceIds(account.id)).toEqual(listed.map((d) => d.id));
    expect(await storage.listAccountDevices(uid('missing'))).toEqual([]);
    expect(await storage.listAccountDeviceIds(uid('missing'))).toEqual([]);
  });

  it('listAccountDeviceIds follows every change after a listing: a device added, moved away, moved in, deleted, and a listing changed by its caller', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const other = await newAccount(storage);
    const stem = uid('dev');
    const a = await newDevice(storage, account.id, `${stem}-a`);
    const listed = await storage.listAccountDeviceIds(account.id);
    expect(listed).toEqual([a.id]);
    // What a caller does with its list is its own business.
    listed.push('intruder');
    expect(await storage.listAccountDeviceIds(account.id)).toEqual([a.id]);
    const c = await newDevice(storage, account.id, `${stem}-c`);
    const b = await newDevice(storage, account.id, `${stem}-b`);
    expect(await storage.listAccountDeviceIds(account.id)).toEqual([a.id, b.id, c.id]);
    await storage.upsertDevice({ ...b, accountId: other.id });
    expect(await storage.listAccountDeviceIds(account.id)).toEqual([a.id, c.id]);
    const moved = await newDevice(storage, other.id, `${stem}-0`);
    await storage.upsertDevice({ ...moved, accountId: account.id });
    expect(await storage.listAccountDeviceIds(account.id)).toEqual([moved.id, a.id, c.id]);
    await storage.deleteDevice(a.id);
    expect(await storage.listAccountDeviceIds(account.id)).toEqual([moved.id, c.id]);
    expect(await storage.listAccountDeviceIds(other.id)).toEqual([b.id]);
  });

  it('deleteDevice is true once, then false, and removes every share naming it', async () => {
    const { storage } = get();
    const owners = [await newAccount(storage), await newAccount(storage)];
    const viewer = await newAccount(storage);
    const device = await newDevice(storage, viewer.id);
    const keeper = await newDevice(storage, viewer.id);
    const widgets = [await newWidget(storage, owners[0]!.id), await newWidget(storage, owners[1]!.id)];
    for (const [i, widget] of widgets.entries()) {
      expect(await storage.shareWidget(owners[i]!.id, widget.slug, device.id)).toBe(true);
      expect(await storage.shareWidget(owners[i]!.id, widget.slug, keeper.id)).toBe(true);
    }
    expect(await storage.deleteDevice(device.id)).toBe(true);
    expect(await storage.deleteDevice(device.id)).toBe(false);
    expect(await storage.getDevice(device.id)).toBeNull();
    expect(await storage.findDeviceByTokenHash(device.tokenHash)).toBeNull();
    expect(await storage.listAccountDevices(viewer.id)).toEqual([keeper]);
    expect(await storage.listAccountDeviceIds(viewer.id)).toEqual([keeper.id]);
    for (const [i, widget] of widgets.entries()) {
      expect(await storage.listWidgetShares(owners[i]!.id, widget.slug)).toEqual([keeper.id]);
    }
    // Registering the same id again does not bring the shares back.
    await storage.upsertDevice(device);
    expect(await storage.listWidgetShares(owners[0]!.id, widgets[0]!.slug)).toEqual([keeper.id]);
  });
}
