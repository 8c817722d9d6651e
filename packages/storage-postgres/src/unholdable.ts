import {
  isHoldable,
  refuseUnholdable,
  refuseUnholdableJson,
  writeRefusal,
  type AccountStore,
  type ActivityStore,
  type ApnsStore,
  type CredentialStore,
  type DeviceIdentity,
  type DeviceStore,
  type DeviceStreamSlotStore,
  type EventStore,
  type EventStreamSlotStore,
  type PressStore,
  type PushThrottleStore,
  type SlotAcquisition,
  type SlotRenewal,
  type SeedStore,
  type WebhookStore,
  type WidgetStore,
  type WriteGuard,
  type WriteRefusal,
} from '@tilecast/core/storage';

/** The store's methods that take strings from its callers: every concern but housekeeping. */
export type KeyedMethods = AccountStore &
  SeedStore &
  ActivityStore &
  WidgetStore &
  DeviceStore &
  CredentialStore &
  EventStore &
  EventStreamSlotStore &
  DeviceStreamSlotStore &
  PressStore &
  PushThrottleStore &
  WebhookStore &
  ApnsStore;

const holdable = (...values: string[]): boolean => values.every(isHoldable);

/** A device identity no store can hold is never the device's: a write conditioned on it writes nothing. */
const holdsIdentity = (identity: DeviceIdentity | undefined): boolean => identity === undefined || holdable(identity.accountId, identity.tokenHash);

const NULL = Promise.resolve(null);
const FALSE = Promise.resolve(false);
const TRUE = Promise.resolve(true);
const NONE = Promise.resolve();

/** The three calls of one kind of stream slots (an account's event streams, a device's streams). */
interface SlotCalls {
  acquire(ownerId: string, slotId: string, terms: SlotAcquisition): Promise<boolean>;
  renew(ownerId: string, slotId: string, terms: SlotRenewal): Promise<boolean>;
  release(ownerId: string, slotId: string): Promise<void>;
}

/** Stream slots of any kind, guarded alike: a lease is a write, its renewal and release a change. */
function guardSlots(calls: SlotCalls): SlotCalls {
  return {
    acquire: async (ownerId, slotId, terms) => {
      refuseUnholdable('a stream lease', ownerId, slotId);
      return calls.acquire(ownerId, slotId, terms);
    },
    renew: (ownerId, slotId, terms) => (holdable(ownerId, slotId) ? calls.renew(ownerId, slotId, terms) : FALSE),
    release: (ownerId, slotId) => (holdable(ownerId, slotId) ? calls.release(ownerId, slotId) : NONE),
  };
}

/**
 * The `Storage` rule for strings no store can hold (a NUL, a lone surrogate), in one place:
 * PostgreSQL refuses a NUL in text with an error (a 500 if it ever got that far) and turns a
 * lone surrogate into U+FFFD (another string), so such a key never reaches a statement. A
 * read or change answers as for an absent record, a write that would record it rejects
 * with the core's `refuseUnholdable` error, exactly as the memory store answers. The
 * conformance concern `unholdableValues` holds both to it.
 */
export function guardUnholdable(m: KeyedMethods): KeyedMethods {
  /** A guarded write of a record that cannot exist: refused as `writeRefusal` orders it. */
  const absentWrite = async (accountId: string, guard: WriteGuard | undefined): Promise<{ ok: false; reason: WriteRefusal }> => {
    const tokenHash = guard?.tokenHash;
    let credentialHolds = tokenHash === undefined;
    if (tokenHash !== undefined && holdable(accountId, tokenHash)) {
      const account = await m.getAccount(accountId);
      credentialHolds = account !== null && account.tokenHash === tokenHash && account.subscription === 'active';
    }
    return { ok: false, reason: writeRefusal(credentialHolds, null, guard) ?? 'not_found' };
  };
  const eventSlots = guardSlots({ acquire: m.acquireEventStreamSlot, renew: m.renewEventStreamSlot, release: m.releaseEventStreamSlot });
  const deviceSlots = guardSlots({ acquire: m.acquireDeviceStreamSlot, renew: m.renewDeviceStreamSlot, release: m.releaseDeviceStreamSlot });
  const writable = (accountId: string, slug: string, guard: WriteGuard | undefined): boolean =>
    holdable(accountId, slug) && (guard?.tokenHash === undefined || isHoldable(guard.tokenHash));

  return {
    ...m,
    // ── accounts
    upsertAccount: async (account) => {
      refuseUnholdable('an account', account.id, account.tokenHash);
      return m.upsertAccount(account);
    },
    deleteAccount: (id) => (holdable(id) ? m.deleteAccount(id) : FALSE),
    getAccount: (id) => (holdable(id) ? m.getAccount(id) : NULL),
    findAccountByTokenHash: (hash) => (holdable(hash) ? m.findAccountByTokenHash(hash) : NULL),
    setAccountTokenHash: async (id, hash) => {
      if (!holdable(id) || (await m.getAccount(id)) === null) return false;
      refuseUnholdable('a token hash', hash);
      return m.setAccountTokenHash(id, hash);
    },
    updateAccount: (id, patch) => (holdable(id) ? m.updateAccount(id, patch) : FALSE),
    listAccounts: (page) => (page.after === null || holdable(page.after) ? m.listAccounts(page) : Promise.resolve([])),
    createIfAbsent: async (record) => {
      if (record.kind === 'account') refuseUnholdable('an account', record.account.id, record.account.tokenHash);
      else if (record.kind === 'device') refuseUnholdable('a device', record.device.id, record.device.accountId, record.device.tokenHash);
      else refuseUnholdable(`a ${record.kind}`, record.definition.accountId, record.definition.slug);
      return m.createIfAbsent(record);
    },

    // ── activities
    putActivity: async (definition) => {
      refuseUnholdable('an activity', definition.accountId, definition.slug);
      return m.putActivity(definition);
    },
    deleteActivity: (id, slug) => (holdable(id, slug) ? m.deleteActivity(id, slug) : FALSE),
    getActivity: (id, slug) => (holdable(id, slug) ? m.getActivity(id, slug) : NULL),
    applyActivityUpdate: (id, slug, update) => (writable(id, slug, update.guard) ? m.applyActivityUpdate(id, slug, update) : absentWrite(id, update.guard)),
    listActivities: (id) => (holdable(id) ? m.listActivities(id) : Promise.resolve([])),

    // ── widgets
    putWidget: async (definition) => {
      refuseUnholdable('a widget', definition.accountId, definition.slug);
      return m.putWidget(definition);
    },
    deleteWidget: (id, slug) => (holdable(id, slug) ? m.deleteWidget(id, slug) : FALSE),
    getWidget: (id, slug) => (holdable(id, slug) ? m.getWidget(id, slug) : NULL),
    setWidgetContent: (id, slug, update) => (writable(id, slug, update.guard) ? m.setWidgetContent(id, slug, update) : absentWrite(id, update.guard)),
    listWidgets: (id) => (holdable(id) ? m.listWidgets(id) : Promise.resolve([])),
    listWidgetsSharedWith: (deviceId) => (holdable(deviceId) ? m.listWidgetsSharedWith(deviceId) : Promise.resolve([])),
    shareWidget: (id, slug, deviceId) => (holdable(id, slug, deviceId) ? m.shareWidget(id, slug, deviceId) : FALSE),
    unshareWidget: (id, slug, deviceId) => (holdable(id, slug, deviceId) ? m.unshareWidget(id, slug, deviceId) : FALSE),
    listWidgetShares: (id, slug) => (holdable(id, slug) ? m.listWidgetShares(id, slug) : Promise.resolve([])),
    getPressTarget: async (id, slug, actionId, deviceId) => {
      if (!holdable(id, slug)) return null;
      const knownAction = isHoldable(actionId);
      const knownDevice = isHoldable(deviceId);
      if (knownAction && knownDevice) return m.getPressTarget(id, slug, actionId, deviceId);
      // The widget is looked up all the same; no action or share can have such an id.
      const target = await m.getPressTarget(id, slug, knownAction ? actionId : '', knownDevice ? deviceId : '');
      return target && { ...target, action: knownAction ? target.action : null, sharedWithDevice: knownDevice && target.sharedWithDevice };
    },

    // ── devices
    upsertDevice: async (device) => {
      refuseUnholdable('a device', device.id, device.accountId, device.tokenHash);
      return m.upsertDevice(device);
    },
    deleteDevice: (id) => (holdable(id) ? m.deleteDevice(id) : FALSE),
    getDevice: (id) => (holdable(id) ? m.getDevice(id) : NULL),
    findDeviceByTokenHash: (hash) => (holdable(hash) ? m.findDeviceByTokenHash(hash) : NULL),
    listAccountDevices: (id) => (holdable(id) ? m.listAccountDevices(id) : Promise.resolve([])),
    listAccountDeviceIds: (id) => (holdable(id) ? m.listAccountDeviceIds(id) : Promise.resolve([])),

    // ── credentials of open streams: such an entry never holds; the others are asked as usual
    checkCredentials: async (query) => {
      const accounts = query.accounts.map((entry) => holdable(entry.accountId, entry.tokenHash));
      const devices = query.devices.map((entry) => holdable(entry.deviceId, entry.tokenHash));
      if (!accounts.includes(false) && !devices.includes(false)) return m.checkCredentials(query);
      const asked = await m.checkCredentials({
        accounts: query.accounts.filter((_, i) => accounts[i]),
        devices: query.devices.filter((_, i) => devices[i]),
      });
      const answer = (kept: boolean[], found: boolean[]) => {
        let next = 0;
        return kept.map((keptEntry) => keptEntry && found[next++]!);
      };
      return { accounts: answer(accounts, asked.accounts), devices: answer(devices, asked.devices) };
    },

    // ── event log and stream slots
    appendEvent: async (id, event) => {
      refuseUnholdable('an account id', id);
      return m.appendEvent(id, event);
    },
    readEvents: (id, read) => (holdable(id) ? m.readEvents(id, read) : Promise.resolve([])),
    lastEventPosition: (id) => (holdable(id) ? m.lastEventPosition(id) : Promise.resolve(0)),
    acquireEventStreamSlot: eventSlots.acquire,
    renewEventStreamSlot: eventSlots.renew,
    releaseEventStreamSlot: eventSlots.release,
    acquireDeviceStreamSlot: deviceSlots.acquire,
    renewDeviceStreamSlot: deviceSlots.renew,
    releaseDeviceStreamSlot: deviceSlots.release,

    // ── presses and the push throttle
    admitPress: async (press) => {
      refuseUnholdable('a press', press.key, press.accountId, press.note.widgetKey, press.note.deviceId);
      for (const rule of press.rules) refuseUnholdable('a bucket key', rule.key);
      return m.admitPress(press);
    },
    notePress: async (note) => {
      refuseUnholdable('a press note', note.widgetKey, note.deviceId);
      return m.notePress(note);
    },
    listRecentPressers: (widgetKey, now) => (holdable(widgetKey) ? m.listRecentPressers(widgetKey, now) : Promise.resolve([])),
    claimWidgetPush: async (key, window) => {
      refuseUnholdable('a widget key', key);
      return m.claimWidgetPush(key, window);
    },
    claimTrailingPush: (key, window) => (holdable(key) ? m.claimTrailingPush(key, window) : FALSE),

    // ── webhooks: a missing widget answers first, as in every store
    setWebhookMap: async (id, slug, map) => {
      if (!holdable(id, slug)) return false;
      try {
        refuseUnholdableJson('a webhook map', map);
      } catch (error) {
        if ((await m.getWidget(id, slug)) === null) return false;
        throw error;
      }
      return m.setWebhookMap(id, slug, map);
    },
    getWebhookMap: (id, slug) => (holdable(id, slug) ? m.getWebhookMap(id, slug) : NULL),
    claimWebhookDelivery: async (eventId, entryKey, claim) => {
      refuseUnholdable('a delivery claim', eventId, entryKey, claim.instanceId);
      return m.claimWebhookDelivery(eventId, entryKey, claim);
    },
    recordWebhookOutcome: async (id, slug, entryKey, outcome) => {
      if (!holdable(id, slug)) return;
      if (!isHoldable(entryKey)) {
        if ((await m.getWidget(id, slug)) === null) return;
        refuseUnholdable('a webhook entry key', entryKey);
      }
      return m.recordWebhookOutcome(id, slug, entryKey, outcome);
    },
    getWebhookOutcomes: (id, slug) => (holdable(id, slug) ? m.getWebhookOutcomes(id, slug) : Promise.resolve({})),

    // ── APNs registrations: a missing device or activity answers first, as in every store
    setApnsRegistration: async (deviceId, registration, condition) => {
      if (!holdable(deviceId) || !holdsIdentity(condition?.ifDevice)) return false;
      const tokens = [registration.pushToStart, registration.widgets].filter((token) => typeof token === 'string');
      if (!holdable(...tokens)) {
        if ((await m.getDevice(deviceId)) === null) return false;
        refuseUnholdable('an APNs token', ...tokens);
      }
      return m.setApnsRegistration(deviceId, registration, condition);
    },
    getApnsRegistration: (deviceId) => (holdable(deviceId) ? m.getApnsRegistration(deviceId) : NULL),
    // No such device can exist: nothing to remove, and no identity of it holds.
    removeApnsRegistration: (deviceId, condition) => {
      if (!holdable(deviceId) || !holdsIdentity(condition?.ifDevice)) return condition?.ifDevice === undefined ? TRUE : FALSE;
      return m.removeApnsRegistration(deviceId, condition);
    },
    setActivityPushToken: async (deviceId, id, slug, token, condition) => {
      if (!holdable(deviceId, id, slug) || !holdsIdentity(condition?.ifDevice)) return false;
      if (!isHoldable(token)) {
        const device = await m.getDevice(deviceId);
        if (device?.accountId !== id || (await m.getActivity(id, slug)) === null) return false;
        refuseUnholdable('an APNs token', token);
      }
      return m.setActivityPushToken(deviceId, id, slug, token, condition);
    },
    getActivityPushToken: (deviceId, id, slug) => (holdable(deviceId, id, slug) ? m.getActivityPushToken(deviceId, id, slug) : NULL),
    forgetActivityPushToken: (deviceId, id, slug, condition) => {
      if (!holdable(deviceId, id, slug)) return NONE;
      // A token no store holds is never the one held: nothing to forget.
      if (condition?.ifToken !== undefined && !isHoldable(condition.ifToken)) return NONE;
      return m.forgetActivityPushToken(deviceId, id, slug, condition);
    },
    removeApnsToken: (deviceId, token) => (holdable(deviceId, token) ? m.removeApnsToken(deviceId, token) : NONE),
  };
}
