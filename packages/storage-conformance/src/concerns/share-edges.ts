import { expect, it } from 'vitest';
import { type GetHandles, either, newAccount, newDevice, newWidget, randomHash } from '../harness.js';

/**
 * A widget is shared with devices of other accounts only: a device of its own account shows
 * it already (a share would list and push it twice), and a device that moves to another
 * account leaves the shares made for its old one behind.
 */
export function shareEdgeTests(get: GetHandles): void {
  it("shareWidget with a device of the widget's own account is false and writes nothing", async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const own = await newDevice(storage, owner.id);
    const guest = await newDevice(storage, (await newAccount(storage)).id);
    expect(await storage.shareWidget(owner.id, widget.slug, own.id)).toBe(false);
    expect(await storage.shareWidget(owner.id, widget.slug, own.id)).toBe(false);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([]);
    expect(await storage.listWidgetsSharedWith(own.id)).toEqual([]);
    expect((await storage.getPressTarget(owner.id, widget.slug, 'any', own.id))?.sharedWithDevice).toBe(false);
    // A device of another account still gets it.
    expect(await storage.shareWidget(owner.id, widget.slug, guest.id)).toBe(true);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([guest.id]);
  });

  it('a device moved to another account loses its shares, from every account; a rotated token keeps them', async () => {
    const { storage } = get();
    const [owner, third, home, next] = [await newAccount(storage), await newAccount(storage), await newAccount(storage), await newAccount(storage)];
    const [widget, other] = [await newWidget(storage, owner.id), await newWidget(storage, third.id)];
    const device = await newDevice(storage, home.id);
    expect(await storage.shareWidget(owner.id, widget.slug, device.id)).toBe(true);
    expect(await storage.shareWidget(third.id, other.slug, device.id)).toBe(true);

    const rotated = { ...device, tokenHash: randomHash() };
    await storage.upsertDevice(rotated);
    expect((await storage.listWidgetsSharedWith(device.id)).map((w) => w.slug)).toHaveLength(2);

    await storage.upsertDevice({ ...rotated, accountId: next.id });
    expect(await storage.listWidgetsSharedWith(device.id)).toEqual([]);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([]);
    expect(await storage.listWidgetShares(third.id, other.slug)).toEqual([]);
    // Shared again on purpose for its new account, it is.
    expect(await storage.shareWidget(owner.id, widget.slug, device.id)).toBe(true);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([device.id]);
  });

  it("a device moved into the widget's account is no longer shared it (it is not listed twice)", async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const device = await newDevice(storage, (await newAccount(storage)).id);
    expect(await storage.shareWidget(owner.id, widget.slug, device.id)).toBe(true);
    await storage.upsertDevice({ ...device, accountId: owner.id });
    expect(await storage.listWidgetsSharedWith(device.id)).toEqual([]);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([]);
  });

  it("shares racing the device's move into the widget's account, over two instances, leave no share behind", async () => {
    const handles = get();
    const { storage } = handles;
    const owner = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const device = await newDevice(storage, (await newAccount(storage)).id);
    const shares = Array.from({ length: 20 }, (_, i) => either(handles, i).shareWidget(owner.id, widget.slug, device.id));
    const move = either(handles, 1).upsertDevice({ ...device, accountId: owner.id });
    await Promise.all([...shares, move]);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([]);
    expect(await storage.shareWidget(owner.id, widget.slug, device.id)).toBe(false);
  });
}
