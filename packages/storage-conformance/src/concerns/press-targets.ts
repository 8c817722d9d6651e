import { expect, it } from 'vitest';
import { type GetHandles, T0, newAccount, newDevice, newWidget, uid } from '../harness.js';

export function pressTargetTests(get: GetHandles): void {
  it('getPressTarget is null for a missing widget, another account or another case', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const device = await newDevice(storage, account.id);
    expect(await storage.getPressTarget(account.id, uid('missing'), 'a', device.id)).toBeNull();
    expect(await storage.getPressTarget(uid('other'), widget.slug, 'a', device.id)).toBeNull();
    expect(await storage.getPressTarget(account.id, widget.slug.toUpperCase(), 'a', device.id)).toBeNull();
    expect(await storage.getPressTarget(account.id, widget.slug, 'a', device.id)).toEqual({ action: null, sharedWithDevice: false, hasWebhooks: false });
  });

  it('getPressTarget finds the first action of the id in the current content: toggle, else button', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const device = await newDevice(storage, account.id);
    const actionOf = async (id: string) => (await storage.getPressTarget(account.id, widget.slug, id, device.id))?.action;
    const setContent = (content: unknown) => storage.setWidgetContent(account.id, widget.slug, { content, staleAfter: undefined, now: T0 });

    await setContent({
      template: 'switchboard',
      actions: [
        null,
        5,
        'a',
        { id: 5, kind: 'toggle' },
        { id: 'a', kind: 'button' },
        { id: 'b', kind: 'toggle' },
        { id: 'c', kind: 'dial' },
        { id: 'a', kind: 'toggle' },
        { kind: 'toggle' },
      ],
    });
    expect(await actionOf('a')).toBe('button');
    expect(await actionOf('b')).toBe('toggle');
    expect(await actionOf('c')).toBe('button');
    expect(await actionOf('5')).toBeNull();
    expect(await actionOf('A')).toBeNull();
    expect(await actionOf('')).toBeNull();

    await setContent({ template: 'switchboard', actions: [{ id: 'a', kind: 'toggle' }] });
    expect(await actionOf('a')).toBe('toggle');
    expect(await actionOf('b')).toBeNull();

    for (const content of [{ value: 1 }, { actions: { id: 'a', kind: 'toggle' } }, { actions: 'a' }, [{ id: 'a' }], 'a', 1, null]) {
      await setContent(content);
      expect(await actionOf('a')).toBeNull();
    }
  });

  it('getPressTarget tells whether the widget is shared with the device', async () => {
    const { storage } = get();
    const owner = await newAccount(storage);
    const other = await newAccount(storage);
    const widget = await newWidget(storage, owner.id);
    const own = await newDevice(storage, owner.id);
    const guest = await newDevice(storage, other.id);
    const shared = async (deviceId: string) => (await storage.getPressTarget(owner.id, widget.slug, 'a', deviceId))?.sharedWithDevice;
    expect(await shared(guest.id)).toBe(false);
    expect(await shared(own.id)).toBe(false);
    expect(await shared(uid('unknown'))).toBe(false);
    await storage.shareWidget(owner.id, widget.slug, guest.id);
    expect(await shared(guest.id)).toBe(true);
    expect(await shared(own.id)).toBe(false);
    await storage.unshareWidget(owner.id, widget.slug, guest.id);
    expect(await shared(guest.id)).toBe(false);
  });

  it('getPressTarget tells whether the webhook map has any entry', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const device = await newDevice(storage, account.id);
    const hasWebhooks = async () => (await storage.getPressTarget(account.id, widget.slug, 'a', device.id))?.hasWebhooks;
    expect(await hasWebhooks()).toBe(false);
    await storage.setWebhookMap(account.id, widget.slug, { '*': { url: 'https://example.com/' } });
    expect(await hasWebhooks()).toBe(true);
    await storage.setWebhookMap(account.id, widget.slug, {});
    expect(await hasWebhooks()).toBe(false);
    await storage.setWebhookMap(account.id, widget.slug, { go: { url: 'https://example.com/' } });
    expect(await hasWebhooks()).toBe(true);
  });
}
