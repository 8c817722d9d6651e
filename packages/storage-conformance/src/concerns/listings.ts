import { expect, it } from 'vitest';
import { type GetHandles, T0, content, iso, newAccount, newActivity, newDevice, newWidget, uid } from '../harness.js';

/** What a device sees when it connects: the listings behind the device stream's snapshot. */
export function listingTests(get: GetHandles): void {
  it("listActivities and listWidgets return the account's own records, sorted by slug (code units)", async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const other = await newAccount(storage);
    for (const slug of ['b', 'B', 'a']) {
      await storage.putActivity({ accountId: account.id, slug, template: 'progress', dismissalDelayS: 30 });
      await storage.putWidget({ accountId: account.id, slug, template: 'gauge', staleAfter: null, privacy: 'visible' });
    }
    await newActivity(storage, other.id);
    await newWidget(storage, other.id);
    await storage.setWidgetContent(account.id, 'a', { content: content(1), staleAfter: undefined, now: T0 });

    expect((await storage.listActivities(account.id)).map((a) => a.slug)).toEqual(['B', 'a', 'b']);
    const widgets = await storage.listWidgets(account.id);
    expect(widgets.map((w) => w.slug)).toEqual(['B', 'a', 'b']);
    expect(widgets[1]).toEqual({
      accountId: account.id,
      slug: 'a',
      template: 'gauge',
      staleAfter: null,
      privacy: 'visible',
      content: content(1),
      updatedAt: iso(T0),
    });
    expect(await storage.listActivities(uid('nobody'))).toEqual([]);
    expect(await storage.listWidgets(uid('nobody'))).toEqual([]);
  });

  it('listWidgetsSharedWith returns widgets shared with a device, sorted by account then slug, and forgets unshared ones', async () => {
    const { storage } = get();
    const [owner1, owner2, viewer] = [await newAccount(storage), await newAccount(storage), await newAccount(storage)];
    const [first, second] = owner1.id < owner2.id ? [owner1, owner2] : [owner2, owner1];
    const phone = await newDevice(storage, viewer.id);
    const w2 = await newWidget(storage, second.id);
    const w1b = await newWidget(storage, first.id);
    await storage.putWidget({ accountId: first.id, slug: 'a-first', template: 'switchboard', staleAfter: 300, privacy: 'visible' });
    for (const [accountId, slug] of [
      [second.id, w2.slug],
      [first.id, w1b.slug],
      [first.id, 'a-first'],
    ] as const) {
      expect(await storage.shareWidget(accountId, slug, phone.id)).toBe(true);
    }
    const listed = await storage.listWidgetsSharedWith(phone.id);
    expect(listed.map((w) => [w.accountId, w.slug])).toEqual([
      [first.id, 'a-first'],
      [first.id, w1b.slug],
      [second.id, w2.slug],
    ]);

    await storage.unshareWidget(first.id, 'a-first', phone.id);
    await storage.deleteWidget(second.id, w2.slug);
    expect((await storage.listWidgetsSharedWith(phone.id)).map((w) => w.slug)).toEqual([w1b.slug]);
    expect(await storage.listWidgetsSharedWith(uid('no-device'))).toEqual([]);
  });
}
