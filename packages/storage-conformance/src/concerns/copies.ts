import { expect, it } from 'vitest';
import { type GetHandles, T0, content, newAccount, newActivity, newDevice, newEvent, newWidget, uid, written } from '../harness.js';

/** Scribbles over every field and nested value of a returned record. */
function scribble(value: unknown): void {
  if (Array.isArray(value)) {
    value.push('scribbled');
    value.forEach(scribble);
  } else if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (record[key] !== null && typeof record[key] === 'object') scribble(record[key]);
      else record[key] = 'scribbled';
    }
    record.scribbled = true;
  }
}

export function copyTests(get: GetHandles): void {
  it('accounts and devices: mutating a returned or a passed-in record never changes the store', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const saved = structuredClone(account);
    scribble(account); // the object passed to upsertAccount
    scribble(await storage.getAccount(saved.id));
    scribble(await storage.findAccountByTokenHash(saved.tokenHash));
    expect(await storage.getAccount(saved.id)).toEqual(saved);
    expect(await storage.findAccountByTokenHash(saved.tokenHash)).toEqual(saved);

    const device = await newDevice(storage, saved.id);
    const savedDevice = structuredClone(device);
    scribble(device);
    scribble(await storage.getDevice(savedDevice.id));
    scribble(await storage.findDeviceByTokenHash(savedDevice.tokenHash));
    const list = await storage.listAccountDevices(saved.id);
    scribble(list);
    expect(await storage.getDevice(savedDevice.id)).toEqual(savedDevice);
    expect(await storage.listAccountDevices(saved.id)).toEqual([savedDevice]);
  });

  // The content and events given to the publishing writes are handed over (Storage rules):
  // only what is read back must be a copy.
  it('activities: records read back are copies', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const update = { state: 'ONGOING' as const, content: content(0.5), now: T0 };
    const result = await storage.applyActivityUpdate(account.id, activity.slug, update);
    const expected = structuredClone(result.ok ? result.activity : null);
    expect(expected).not.toBeNull();
    scribble(await storage.getActivity(account.id, activity.slug));
    expect(await storage.getActivity(account.id, activity.slug)).toEqual(expected);
    expect(expected?.content).toEqual(content(0.5));
  });

  it('widgets, shares and webhook maps: values read back, and passed-in maps, are copies', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const viewer = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const device = await newDevice(storage, viewer.id);
    await storage.shareWidget(account.id, widget.slug, device.id);
    const body = content(7);
    const updated = written(await storage.setWidgetContent(account.id, widget.slug, { content: body, staleAfter: undefined, now: T0 })).widget;
    const expected = structuredClone(updated);
    scribble(await storage.getWidget(account.id, widget.slug));
    scribble(await storage.listWidgetShares(account.id, widget.slug));
    expect(await storage.getWidget(account.id, widget.slug)).toEqual(expected);
    expect(expected.content).toEqual(content(7));
    expect(await storage.listWidgetShares(account.id, widget.slug)).toEqual([device.id]);

    const map = { '*': { url: 'https://example.com/', headers: { a: 'b' } } };
    await storage.setWebhookMap(account.id, widget.slug, map);
    scribble(map);
    scribble(await storage.getWebhookMap(account.id, widget.slug));
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual({ '*': { url: 'https://example.com/', headers: { a: 'b' } } });

    const at = new Date(T0).toISOString();
    await storage.recordWebhookOutcome(account.id, widget.slug, '*', { outcome: 'success', at });
    scribble(await storage.getWebhookOutcomes(account.id, widget.slug));
    expect(await storage.getWebhookOutcomes(account.id, widget.slug)).toEqual({ '*': { lastSuccessAt: at, lastFailureAt: null } });
  });

  it('events: the events read back are copies', async () => {
    const { storage } = get();
    const account = uid('acct');
    const event = newEvent(T0 + 60_000);
    const saved = structuredClone(event);
    expect(await storage.appendEvent(account, event)).toEqual({ ...saved, position: 1 });
    scribble(await storage.readEvents(account, { after: 0, now: T0, limit: 10 }));
    expect(await storage.readEvents(account, { after: 0, now: T0, limit: 10 })).toEqual([{ ...saved, position: 1 }]);
  });
}
