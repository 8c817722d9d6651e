import { expect, it } from 'vitest';
import { type GetHandles, T0, admission, content, newAccount, newActivity, newDevice, newEvent, newWidget, randomHash, uid, written } from '../harness.js';

/**
 * Strings no store can hold: a NUL (PostgreSQL text cannot keep one) and lone surrogates
 * (no UTF-8 form). Each is tried alone and inside an otherwise plausible key.
 */
const UNHOLDABLE = ['\u0000', 'a\u0000b', '\ud800', 'x\udfff', 'y\ud800\ud800', '\udc00\ud800'];
const CANNOT_HOLD = /no store can hold/;

/**
 * Storage rules: a string no store can hold names nothing. A read or change keyed by one
 * answers as for an absent record, a write that would record one rejects with a
 * `TypeError` (core's `guardUnholdable` does both); never a driver error, and the same on
 * every store.
 */
export function unholdableValueTests(get: GetHandles): void {
  it('accounts: lookups and changes by such an id or token hash find nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    for (const bad of UNHOLDABLE) {
      expect(await storage.getAccount(bad)).toBeNull();
      expect(await storage.getAccount(account.id + bad)).toBeNull();
      expect(await storage.findAccountByTokenHash(bad)).toBeNull();
      expect(await storage.findAccountByTokenHash(account.tokenHash + bad)).toBeNull();
      expect(await storage.setAccountTokenHash(bad, randomHash())).toBe(false);
      expect(await storage.updateAccount(bad, { subscription: 'none' })).toBe(false);
      expect(await storage.deleteAccount(bad)).toBe(false);
      expect(await storage.listAccounts({ after: bad, limit: 10 })).toEqual([]);
      expect(await storage.listAccounts({ after: account.id + bad, limit: 10 })).toEqual([]);
    }
    expect(await storage.getAccount(account.id)).toEqual(account);
  });

  it('activities: lookups, updates and listings by such an id or slug find nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const update = (tokenHash?: string) => ({
      state: 'ONGOING' as const,
      content: content(1),
      now: T0,
      guard: tokenHash === undefined ? undefined : { tokenHash },
    });
    for (const bad of UNHOLDABLE) {
      expect(await storage.getActivity(account.id, bad)).toBeNull();
      expect(await storage.getActivity(bad, activity.slug)).toBeNull();
      expect(await storage.getActivity(account.id, activity.slug + bad)).toBeNull();
      expect(await storage.applyActivityUpdate(account.id, bad, update())).toEqual({ ok: false, reason: 'not_found' });
      expect(await storage.applyActivityUpdate(account.id, bad, update(account.tokenHash))).toEqual({ ok: false, reason: 'not_found' });
      expect(await storage.applyActivityUpdate(account.id, bad, update(randomHash()))).toEqual({ ok: false, reason: 'credential_changed' });
      expect(await storage.applyActivityUpdate(bad, activity.slug, update())).toEqual({ ok: false, reason: 'not_found' });
      expect(await storage.applyActivityUpdate(bad, activity.slug, update(account.tokenHash))).toEqual({ ok: false, reason: 'credential_changed' });
      expect(await storage.applyActivityUpdate(account.id, activity.slug, update(bad))).toEqual({ ok: false, reason: 'credential_changed' });
      // A claim no store can hold, for an activity that does not exist: no such activity first.
      const claim = { instanceId: bad, leaseMs: 30_000 };
      expect(await storage.applyActivityUpdate(account.id, uid('act'), { ...update(account.tokenHash), claim })).toEqual({ ok: false, reason: 'not_found' });
      expect(await storage.deleteActivity(account.id, bad)).toBe(false);
      expect(await storage.deleteActivity(bad, activity.slug)).toBe(false);
      expect(await storage.listActivities(bad)).toEqual([]);
    }
    expect(await storage.getActivity(account.id, activity.slug)).toEqual(activity);
  });

  it('widgets: lookups, writes, shares, press targets and listings by such an id or slug find nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const guest = await newDevice(storage, (await newAccount(storage)).id);
    expect(await storage.shareWidget(account.id, widget.slug, guest.id)).toBe(true);
    const write = (tokenHash?: string) => ({ content: content(1), staleAfter: undefined, now: T0, guard: tokenHash === undefined ? undefined : { tokenHash } });
    for (const bad of UNHOLDABLE) {
      expect(await storage.getWidget(account.id, bad)).toBeNull();
      expect(await storage.getWidget(bad, widget.slug)).toBeNull();
      expect(await storage.setWidgetContent(account.id, bad, write())).toEqual({ ok: false, reason: 'not_found' });
      expect(await storage.setWidgetContent(account.id, bad, write(account.tokenHash))).toEqual({ ok: false, reason: 'not_found' });
      expect(await storage.setWidgetContent(account.id, bad, write(randomHash()))).toEqual({ ok: false, reason: 'credential_changed' });
      expect(await storage.setWidgetContent(bad, widget.slug, write())).toEqual({ ok: false, reason: 'not_found' });
      expect(await storage.setWidgetContent(bad, widget.slug, write(account.tokenHash))).toEqual({ ok: false, reason: 'credential_changed' });
      expect(await storage.setWidgetContent(account.id, widget.slug, write(bad))).toEqual({ ok: false, reason: 'credential_changed' });
      // A claim no store can hold, for a widget that does not exist: no such widget first.
      const claim = { instanceId: bad, leaseMs: 30_000 };
      expect(await storage.setWidgetContent(account.id, bad, { ...write(account.tokenHash), claim })).toEqual({ ok: false, reason: 'not_found' });
      expect(await storage.setWidgetContent(account.id, uid('wid'), { ...write(randomHash()), claim })).toEqual({ ok: false, reason: 'credential_changed' });
      expect(await storage.deleteWidget(account.id, bad)).toBe(false);
      expect(await storage.listWidgets(bad)).toEqual([]);
      expect(await storage.listWidgetsSharedWith(bad)).toEqual([]);
      expect(await storage.shareWidget(account.id, bad, guest.id)).toBe(false);
      expect(await storage.shareWidget(account.id, widget.slug, bad)).toBe(false);
      expect(await storage.unshareWidget(account.id, bad, guest.id)).toBe(false);
      expect(await storage.unshareWidget(account.id, widget.slug, bad)).toBe(false);
      expect(await storage.listWidgetShares(account.id, bad)).toEqual([]);
      expect(await storage.listWidgetShares(bad, widget.slug)).toEqual([]);
      expect(await storage.getPressTarget(bad, widget.slug, 'hall', guest.id)).toBeNull();
      expect(await storage.getPressTarget(account.id, bad, 'hall', guest.id)).toBeNull();
      // A press of a known widget by an action or device no store can hold: no such action, not shared.
      expect(await storage.getPressTarget(account.id, widget.slug, bad, guest.id)).toEqual({ action: null, sharedWithDevice: true, hasWebhooks: false });
      expect(await storage.getPressTarget(account.id, widget.slug, 'hall', bad)).toEqual({ action: null, sharedWithDevice: false, hasWebhooks: false });
    }
    expect(await storage.listWidgetShares(account.id, widget.slug)).toEqual([guest.id]);
    expect((await storage.getWidget(account.id, widget.slug))?.content).toBeNull();
  });

  it('devices and credential checks: such an id or token hash finds nothing and holds nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    for (const bad of UNHOLDABLE) {
      expect(await storage.getDevice(bad)).toBeNull();
      expect(await storage.findDeviceByTokenHash(bad)).toBeNull();
      expect(await storage.deleteDevice(bad)).toBe(false);
      expect(await storage.listAccountDevices(bad)).toEqual([]);
      expect(await storage.listAccountDeviceIds(bad)).toEqual([]);
      expect(
        await storage.checkCredentials({
          accounts: [
            { accountId: bad, tokenHash: account.tokenHash },
            { accountId: account.id, tokenHash: bad },
            { accountId: account.id, tokenHash: account.tokenHash },
          ],
          devices: [
            { deviceId: bad, tokenHash: device.tokenHash },
            { deviceId: device.id, tokenHash: bad },
            { deviceId: device.id, tokenHash: device.tokenHash },
          ],
        }),
      ).toEqual({ accounts: [false, false, true], devices: [false, false, true] });
    }
    expect(await storage.getDevice(device.id)).toEqual(device);
  });

  it('event log, event-stream slots and press notes: such a key finds nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const slot = uid('slot');
    expect(await storage.acquireEventStreamSlot(account.id, slot, { max: 4, now: T0, ttlMs: 60_000 })).toBe(true);
    for (const bad of UNHOLDABLE) {
      expect(await storage.readEvents(bad, { after: 0, now: T0, limit: 10 })).toEqual([]);
      expect(await storage.lastEventPosition(bad)).toBe(0);
      expect(await storage.renewEventStreamSlot(bad, slot, { now: T0, ttlMs: 60_000 })).toBe(false);
      expect(await storage.renewEventStreamSlot(account.id, slot + bad, { now: T0, ttlMs: 60_000 })).toBe(false);
      await expect(storage.releaseEventStreamSlot(bad, slot)).resolves.toBeUndefined();
      await expect(storage.releaseEventStreamSlot(account.id, bad)).resolves.toBeUndefined();
      expect(await storage.listRecentPressers(bad, T0)).toEqual([]);
    }
    expect(await storage.renewEventStreamSlot(account.id, slot, { now: T0, ttlMs: 60_000 })).toBe(true);
  });

  it('device-stream slots: such a device id or slot id finds nothing', async () => {
    const { storage } = get();
    const device = await newDevice(storage, (await newAccount(storage)).id);
    const slot = uid('slot');
    expect(await storage.acquireDeviceStreamSlot(device.id, slot, { max: 4, now: T0, ttlMs: 60_000 })).toBe(true);
    for (const bad of UNHOLDABLE) {
      expect(await storage.renewDeviceStreamSlot(bad, slot, { now: T0, ttlMs: 60_000 })).toBe(false);
      expect(await storage.renewDeviceStreamSlot(device.id, slot + bad, { now: T0, ttlMs: 60_000 })).toBe(false);
      await expect(storage.releaseDeviceStreamSlot(bad, slot)).resolves.toBeUndefined();
      await expect(storage.releaseDeviceStreamSlot(device.id, bad)).resolves.toBeUndefined();
    }
    expect(await storage.renewDeviceStreamSlot(device.id, slot, { now: T0, ttlMs: 60_000 })).toBe(true);
  });

  it('delivery jobs and dead letters: such an account, slug or holder has none', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const job = written(await storage.setWidgetContent(account.id, widget.slug, { content: content(1), staleAfter: undefined, now: T0 })).job;
    const terms = { instanceId: 'i1', now: T0, leaseMs: 30_000 };
    const ref = { accountId: account.id, kind: job.kind, slug: job.slug, generation: job.generation, instanceId: 'i1' };
    const progress = { cursor: 'dev', now: T0, leaseMs: 30_000 };
    for (const bad of UNHOLDABLE) {
      expect(await storage.claimDeliveryJob({ accountId: bad, kind: 'widget', slug: widget.slug }, job.generation, terms)).toBeNull();
      expect(await storage.claimDeliveryJob({ accountId: account.id, kind: 'widget', slug: widget.slug + bad }, job.generation, terms)).toBeNull();
      expect(await storage.recordDeliveryProgress({ ...ref, slug: bad }, progress)).toBe(false);
      expect(await storage.recordDeliveryProgress({ ...ref, instanceId: bad }, progress)).toBe(false);
      expect(await storage.completeDeliveryJob({ ...ref, accountId: bad })).toBe(false);
      expect(await storage.completeDeliveryJob({ ...ref, instanceId: bad })).toBe(false);
      await expect(storage.releaseDeliveryJob({ ...ref, slug: bad })).resolves.toBeUndefined();
      expect(await storage.listDeliveryJobs({ accountId: bad, limit: 10 })).toEqual([]);
      expect(await storage.listDeadLetters({ accountId: bad, limit: 10 })).toEqual([]);
    }
    expect(await storage.listDeliveryJobs({ accountId: account.id, limit: 10 })).toEqual([job]);
  });

  it('webhooks: maps and outcomes of such a slug are absent', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    for (const bad of UNHOLDABLE) {
      expect(await storage.getWebhookMap(account.id, bad)).toBeNull();
      expect(await storage.getWebhookMap(bad, widget.slug)).toBeNull();
      expect(await storage.setWebhookMap(account.id, bad, { '*': { url: 'https://example.com/' } })).toBe(false);
      expect(await storage.setWebhookMap(bad, widget.slug, {})).toBe(false);
      expect(await storage.getWebhookOutcomes(account.id, bad)).toEqual({});
      await expect(storage.recordWebhookOutcome(account.id, bad, '*', { outcome: 'success', at: new Date(T0).toISOString() })).resolves.toBeUndefined();
    }
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual({});
  });

  it('a write that would record such a value is refused, and changes nothing', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const widget = await newWidget(storage, account.id);
    const activity = await newActivity(storage, account.id);
    const device = await newDevice(storage, account.id);
    const at = new Date(T0).toISOString();
    const job = written(await storage.setWidgetContent(account.id, widget.slug, { content: content(1), staleAfter: undefined, now: T0 })).job;
    const ref = { ...job, instanceId: 'i1' };
    expect(await storage.claimDeliveryJob(job, job.generation, { instanceId: 'i1', now: T0, leaseMs: 30_000 })).not.toBeNull();
    const letter = { accountId: account.id, kind: 'widget' as const, slug: widget.slug, deviceId: device.id, transport: 'apns', reason: 'refused', at: T0 };
    for (const bad of UNHOLDABLE) {
      const refusals: [string, () => Promise<unknown>][] = [
        ['upsertAccount id', () => storage.upsertAccount({ ...account, id: bad, tokenHash: randomHash() })],
        ['upsertAccount token hash', () => storage.upsertAccount({ ...account, tokenHash: bad })],
        ['setAccountTokenHash', () => storage.setAccountTokenHash(account.id, bad)],
        ['putActivity slug', () => storage.putActivity({ accountId: account.id, slug: bad, template: 'progress', dismissalDelayS: 0 })],
        ['putActivity account', () => storage.putActivity({ accountId: bad, slug: uid('act'), template: 'progress', dismissalDelayS: 0 })],
        ['putWidget slug', () => storage.putWidget({ accountId: account.id, slug: bad, template: 'gauge', staleAfter: null, privacy: 'visible' })],
        ['putWidget account', () => storage.putWidget({ accountId: bad, slug: uid('wid'), template: 'gauge', staleAfter: null, privacy: 'visible' })],
        ['upsertDevice id', () => storage.upsertDevice({ ...device, id: bad, tokenHash: randomHash() })],
        ['upsertDevice account', () => storage.upsertDevice({ id: uid('dev'), accountId: bad, tokenHash: randomHash() })],
        ['upsertDevice token hash', () => storage.upsertDevice({ ...device, tokenHash: bad })],
        ['createIfAbsent account', () => storage.createIfAbsent({ kind: 'account', account: { ...account, id: uid('acc') + bad, tokenHash: randomHash() } })],
        ['createIfAbsent device', () => storage.createIfAbsent({ kind: 'device', device: { id: uid('dev'), accountId: account.id, tokenHash: bad } })],
        [
          'createIfAbsent widget',
          () =>
            storage.createIfAbsent({
              kind: 'widget',
              definition: { accountId: account.id, slug: bad, template: 'gauge', staleAfter: null, privacy: 'visible' },
            }),
        ],
        ['appendEvent', () => storage.appendEvent(bad, newEvent(T0 + 60_000))],
        ['acquireEventStreamSlot account', () => storage.acquireEventStreamSlot(bad, uid('slot'), { max: 4, now: T0, ttlMs: 60_000 })],
        ['acquireEventStreamSlot slot', () => storage.acquireEventStreamSlot(account.id, bad, { max: 4, now: T0, ttlMs: 60_000 })],
        ['acquireDeviceStreamSlot device', () => storage.acquireDeviceStreamSlot(bad, uid('slot'), { max: 4, now: T0, ttlMs: 60_000 })],
        ['acquireDeviceStreamSlot slot', () => storage.acquireDeviceStreamSlot(device.id, bad, { max: 4, now: T0, ttlMs: 60_000 })],
        ['admitPress key', () => storage.admitPress(admission({ key: bad, accountId: account.id }))],
        ['admitPress account', () => storage.admitPress(admission({ accountId: bad }))],
        ['admitPress bucket', () => storage.admitPress(admission({ accountId: account.id, rules: [{ key: bad, capacity: 8, refillMs: 1_000 }] }))],
        ['admitPress note', () => storage.admitPress(admission({ accountId: account.id, note: { widgetKey: bad, deviceId: device.id, until: T0 + 1 } }))],
        ['notePress widget', () => storage.notePress({ widgetKey: bad, deviceId: device.id, until: T0 + 1 })],
        ['notePress device', () => storage.notePress({ widgetKey: uid('w'), deviceId: bad, until: T0 + 1 })],
        ['claimDeliveryJob instance', () => storage.claimDeliveryJob(job, job.generation, { instanceId: bad, now: T0, leaseMs: 30_000 })],
        [
          'applyActivityUpdate claim',
          () =>
            storage.applyActivityUpdate(account.id, activity.slug, {
              state: 'ONGOING',
              content: content(2),
              now: T0,
              claim: { instanceId: bad, leaseMs: 30_000 },
            }),
        ],
        [
          'setWidgetContent claim',
          () =>
            storage.setWidgetContent(account.id, widget.slug, {
              content: content(2),
              staleAfter: undefined,
              now: T0,
              claim: { instanceId: bad, leaseMs: 30_000 },
            }),
        ],
        ['claimDueDeliveryJobs instance', () => storage.claimDueDeliveryJobs({ instanceId: bad, now: T0, leaseMs: 30_000, limit: 10 })],
        ['recordDeliveryProgress cursor', () => storage.recordDeliveryProgress(ref, { cursor: bad, now: T0, leaseMs: 30_000 })],
        ['addDeadLetters account', () => storage.addDeadLetters([{ ...letter, accountId: bad }])],
        ['addDeadLetters slug', () => storage.addDeadLetters([letter, { ...letter, slug: bad }])],
        ['addDeadLetters device', () => storage.addDeadLetters([{ ...letter, deviceId: bad }])],
        ['addDeadLetters transport', () => storage.addDeadLetters([{ ...letter, transport: bad }])],
        ['addDeadLetters reason', () => storage.addDeadLetters([{ ...letter, reason: `dropped: ${bad}` }])],
        ['claimWebhookDelivery event', () => storage.claimWebhookDelivery(bad, '*', { instanceId: 'i1', now: T0, expiresAt: T0 + 60_000 })],
        ['claimWebhookDelivery entry', () => storage.claimWebhookDelivery(uid('ev'), bad, { instanceId: 'i1', now: T0, expiresAt: T0 + 60_000 })],
        ['setWebhookMap key', () => storage.setWebhookMap(account.id, widget.slug, { [bad]: { url: 'https://example.com/' } })],
        ['setWebhookMap value', () => storage.setWebhookMap(account.id, widget.slug, { '*': { url: 'https://example.com/', headers: { 'x-a': [bad] } } })],
        ['recordWebhookOutcome entry', () => storage.recordWebhookOutcome(account.id, widget.slug, bad, { outcome: 'failure', at })],
      ];
      for (const [what, call] of refusals) {
        await expect(call(), `${what} ${JSON.stringify(bad)}`).rejects.toThrow(CANNOT_HOLD);
      }
    }
    expect(await storage.getAccount(account.id)).toEqual(account);
    expect(await storage.getDevice(device.id)).toEqual(device);
    expect(await storage.listAccountDevices(account.id)).toEqual([device]);
    expect(await storage.getActivity(account.id, activity.slug)).toEqual(activity);
    expect(await storage.listWidgets(account.id)).toEqual([{ ...widget, content: content(1), updatedAt: new Date(T0).toISOString() }]);
    expect(await storage.getWebhookMap(account.id, widget.slug)).toEqual({});
    expect(await storage.listDeliveryJobs({ accountId: account.id, limit: 10 })).toEqual([{ ...job, leasedBy: 'i1', leaseUntil: T0 + 30_000 }]);
    expect(await storage.listDeadLetters({ accountId: account.id, limit: 10 })).toEqual([]);
    expect(await storage.getWebhookOutcomes(account.id, widget.slug)).toEqual({});
    expect(await storage.lastEventPosition(account.id)).toBe(0);
  });
}
