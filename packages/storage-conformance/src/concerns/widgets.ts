import { expect, it } from 'vitest';
import { type GetHandles, T0, content, iso, newAccount, newDevice, newWidget, uid, written } from '../harness.js';

export function widgetTests(get: GetHandles): void {
  it('putWidget creates a widget without content; unknown slugs give null', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    expect(await storage.getWidget(account.id, widget.slug)).toEqual(widget);
    expect(await storage.getWidget(account.id, uid('missing'))).toBeNull();
    expect(await storage.getWidget(uid('other'), widget.slug)).toBeNull();
    expect(await storage.getWidget(account.id, widget.slug.toUpperCase())).toBeNull();
  });

  it('setWidgetContent stores content and time; staleAfter undefined keeps, null clears, a number sets', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id); // staleAfter 300
    const set = async (i: number, staleAfter: number | null | undefined) =>
      written(await storage.setWidgetContent(account.id, widget.slug, { content: content(i), staleAfter, now: T0 + i })).widget;

    const kept = { ...widget, content: content(1), staleAfter: 300, updatedAt: iso(T0 + 1) };
    expect(await set(1, undefined)).toEqual(kept);
    expect(await storage.getWidget(account.id, widget.slug)).toEqual(kept);

    const cleared = { ...widget, content: content(2), staleAfter: null, updatedAt: iso(T0 + 2) };
    expect(await set(2, null)).toEqual(cleared);
    expect(await storage.getWidget(account.id, widget.slug)).toEqual(cleared);

    expect(await set(3, undefined)).toEqual({ ...cleared, content: content(3), updatedAt: iso(T0 + 3) });

    const numbered = { ...widget, content: content(4), staleAfter: 900, updatedAt: iso(T0 + 4) };
    expect(await set(4, 900)).toEqual(numbered);
    expect(await set(5, undefined)).toEqual({ ...numbered, content: content(5), updatedAt: iso(T0 + 5) });
    expect(await storage.getWidget(account.id, widget.slug)).toEqual({ ...numbered, content: content(5), updatedAt: iso(T0 + 5) });
  });

  it('setWidgetContent replaces content as a whole (no merge)', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    await storage.setWidgetContent(account.id, widget.slug, { content: { a: 1, b: { c: 2 } }, staleAfter: undefined, now: T0 });
    const updated = await storage.setWidgetContent(account.id, widget.slug, { content: { b: { d: 3 } }, staleAfter: undefined, now: T0 });
    expect(written(updated).widget.content).toEqual({ b: { d: 3 } });
    expect((await storage.getWidget(account.id, widget.slug))?.content).toEqual({ b: { d: 3 } });
  });

  it('setWidgetContent on an unknown widget is not_found and creates nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const slug = uid('missing');
    expect(await storage.setWidgetContent(account.id, slug, { content: content(1), staleAfter: 60, now: T0 })).toEqual({
      ok: false,
      reason: 'not_found',
    });
    expect(await storage.getWidget(account.id, slug)).toBeNull();
  });

  it('putWidget with the same template changes the definition and keeps the content', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id, 'switchboard');
    await storage.setWidgetContent(account.id, widget.slug, { content: content(1), staleAfter: null, now: T0 });
    await storage.putWidget({ accountId: account.id, slug: widget.slug, template: 'switchboard', staleAfter: 600, privacy: 'hidden_when_locked' });
    expect(await storage.getWidget(account.id, widget.slug)).toEqual({
      ...widget,
      staleAfter: 600,
      privacy: 'hidden_when_locked',
      content: content(1),
      updatedAt: iso(T0),
    });
  });

  it('putWidget with another template clears the content', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id, 'switchboard');
    await storage.setWidgetContent(account.id, widget.slug, { content: content(1), staleAfter: undefined, now: T0 });
    await storage.putWidget({ accountId: account.id, slug: widget.slug, template: 'gauge', staleAfter: null, privacy: 'visible' });
    expect(await storage.getWidget(account.id, widget.slug)).toEqual({
      ...widget,
      template: 'gauge',
      staleAfter: null,
      content: null,
      updatedAt: null,
    });
  });

  it('shareWidget is idempotent and false when the widget or the device is missing', async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const viewer = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const device = await newDevice(storage, viewer.id);
    expect(await storage.shareWidget(owner.id, widget.slug, device.id)).toBe(true);
    expect(await storage.shareWidget(owner.id, widget.slug, device.id)).toBe(true);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([device.id]);
    expect(await storage.shareWidget(owner.id, uid('missing'), device.id)).toBe(false);
    expect(await storage.shareWidget(owner.id, widget.slug, uid('missing'))).toBe(false);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([device.id]);
    expect(await storage.listWidgetShares(owner.id, uid('missing'))).toEqual([]);
  });

  it('unshareWidget is true once, then false', async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const viewer = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const [a, b] = [await newDevice(storage, viewer.id), await newDevice(storage, viewer.id)];
    await storage.shareWidget(owner.id, widget.slug, a.id);
    await storage.shareWidget(owner.id, widget.slug, b.id);
    expect(await storage.unshareWidget(owner.id, widget.slug, a.id)).toBe(true);
    expect(await storage.unshareWidget(owner.id, widget.slug, a.id)).toBe(false);
    expect(await storage.unshareWidget(owner.id, uid('missing'), b.id)).toBe(false);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([b.id]);
    expect(await storage.getDevice(a.id)).toEqual(a);
  });

  it('listWidgetShares is sorted by code unit (uppercase before lowercase), whatever the order of sharing', async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const viewer = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const stem = uid('dev');
    const ids = [`${stem}-b`, `${stem}-C`, `${stem}-a`, `${stem}-a1`, `${stem}-B`];
    for (const id of ids) {
      await newDevice(storage, viewer.id, id);
      expect(await storage.shareWidget(owner.id, widget.slug, id)).toBe(true);
    }
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([`${stem}-B`, `${stem}-C`, `${stem}-a`, `${stem}-a1`, `${stem}-b`]);
  });

  it('deleteWidget is true once, then false, and removes shares and webhook map with it', async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const viewer = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const device = await newDevice(storage, viewer.id);
    await storage.shareWidget(owner.id, widget.slug, device.id);
    await storage.setWebhookMap(owner.id, widget.slug, { '*': { url: 'https://example.com/hook' } });
    await storage.setWidgetContent(owner.id, widget.slug, { content: content(1), staleAfter: undefined, now: T0 });

    expect(await storage.deleteWidget(owner.id, widget.slug)).toBe(true);
    expect(await storage.deleteWidget(owner.id, widget.slug)).toBe(false);
    expect(await storage.getWidget(owner.id, widget.slug)).toBeNull();
    expect(await storage.getWebhookMap(owner.id, widget.slug)).toBeNull();
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([]);
    expect(await storage.getDevice(device.id)).toEqual(device);

    // A widget created again under the same slug starts from nothing.
    await storage.putWidget({ accountId: owner.id, slug: widget.slug, template: widget.template, staleAfter: 300, privacy: 'visible' });
    expect(await storage.getWidget(owner.id, widget.slug)).toEqual(widget);
    expect(await storage.listWidgetShares(owner.id, widget.slug)).toEqual([]);
    expect(await storage.getWebhookMap(owner.id, widget.slug)).toEqual({});
  });
}
