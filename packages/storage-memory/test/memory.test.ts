import { createMemoryStorage, type MemoryStorageStats } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';

const T0 = 1_800_000_000_000;
const hash = (n: number) => n.toString(16).padStart(64, '0');

const empty: MemoryStorageStats = {
  accounts: 0,
  activities: 0,
  widgets: 0,
  devices: 0,
  shares: 0,
  events: 0,
  eventStreamSlots: 0,
  deviceStreamSlots: 0,
  buckets: 0,
  pressKeys: 0,
  throttleWindows: 0,
  deliveryClaims: 0,
  apnsRegistrations: 0,
  activityPushTokens: 0,
  fcmTokens: 0,
};

describe('memory storage', () => {
  it('each createMemoryStorage() is an independent store', async () => {
    const a = createMemoryStorage();
    const b = createMemoryStorage();
    await a.upsertAccount({ id: 'acme', tokenHash: hash(1), subscription: 'active', activityQuota: 1 });
    expect(await b.getAccount('acme')).toBeNull();
    expect(await b.findAccountByTokenHash(hash(1))).toBeNull();
    expect((await a.appendEvent('acme', event(T0))).position).toBe(1);
    expect((await b.appendEvent('acme', event(T0))).position).toBe(1);
  });

  it('deleteAccount leaves nothing of the account behind', async () => {
    const storage = createMemoryStorage();
    await storage.upsertAccount({ id: 'acme', tokenHash: hash(1), subscription: 'active', activityQuota: 3 });
    await storage.upsertAccount({ id: 'other', tokenHash: hash(2), subscription: 'active', activityQuota: 3 });
    await storage.putActivity({ accountId: 'acme', slug: 'build', template: 'progress', dismissalDelayS: 0 });
    await storage.applyActivityUpdate('acme', 'build', { state: 'ONGOING', content: {}, now: T0 });
    await storage.putWidget({ accountId: 'acme', slug: 'panel', template: 'switchboard', staleAfter: null, privacy: 'visible' });
    await storage.putWidget({ accountId: 'other', slug: 'panel', template: 'switchboard', staleAfter: null, privacy: 'visible' });
    await storage.upsertDevice({ id: 'acme-phone', accountId: 'acme', tokenHash: hash(3) });
    await storage.upsertDevice({ id: 'other-phone', accountId: 'other', tokenHash: hash(4) });
    await storage.shareWidget('other', 'panel', 'acme-phone');
    await storage.shareWidget('acme', 'panel', 'other-phone');
    await storage.appendEvent('acme', event(T0));
    await storage.acquireEventStreamSlot('acme', 'lease', { max: 4, now: T0, ttlMs: 1_000 });
    await storage.acquireDeviceStreamSlot('acme-phone', 'lease', { max: 4, now: T0, ttlMs: 1_000 });
    await storage.setFcmToken('acme-phone', 'acme-phone:fcm');
    await storage.setFcmToken('other-phone', 'other-phone:fcm');

    await storage.deleteAccount('acme');

    expect(storage.stats()).toEqual({ ...empty, accounts: 1, widgets: 1, devices: 1, fcmTokens: 1 });
    await storage.deleteAccount('other');
    expect(storage.stats()).toEqual(empty);
  });

  it('purgeExpired frees expired rows, full token buckets and ended throttle windows', async () => {
    const storage = createMemoryStorage();
    await storage.appendEvent('acme', event(T0 + 10));
    // An admitted press: its key (expiring at T0 + 10), two buckets, a long-lived note and event.
    const fast = { key: 'fast', capacity: 2, refillMs: 5 };
    const slow = { key: 'slow', capacity: 2, refillMs: 60_000 };
    const note = { widgetKey: 'acme/panel', deviceId: 'phone', until: T0 + 10_000 };
    await storage.admitPress({ key: 'acme/panel/r1', keyExpiresAt: T0 + 10, rules: [fast, slow], now: T0, note, accountId: 'acme', event: event(T0 + 10_000) });
    await storage.acquireEventStreamSlot('acme', 'lease', { max: 4, now: T0, ttlMs: 10 });
    await storage.acquireDeviceStreamSlot('phone', 'lease', { max: 4, now: T0, ttlMs: 10 });
    await storage.claimWebhookDelivery('e1', '*', { instanceId: 'i1', now: T0, expiresAt: T0 + 10 });
    await storage.claimWidgetPush('acme/quiet', { now: T0, windowMs: 10 }); // window ends at T0 + 10, nothing pending
    await storage.claimWidgetPush('acme/busy', { now: T0, windowMs: 10 });
    await storage.claimWidgetPush('acme/busy', { now: T0 + 1, windowMs: 10 }); // a trailing push is pending
    expect(storage.stats()).toMatchObject({
      events: 2,
      pressKeys: 1,
      eventStreamSlots: 1,
      deviceStreamSlots: 1,
      deliveryClaims: 1,
      buckets: 2,
      throttleWindows: 2,
    });

    expect(await storage.purgeExpired({ now: T0 + 10, batch: 100 })).toBe(5);
    expect(storage.stats()).toEqual({ ...empty, events: 1, buckets: 1, throttleWindows: 1 });
    // The pending trailing push survives the purge and is still claimed once.
    expect(await storage.claimTrailingPush('acme/busy', { now: T0 + 10, windowMs: 10 })).toBe(true);
    expect(await storage.purgeExpired({ now: T0 + 20, batch: 100 })).toBe(0);
    expect(storage.stats()).toEqual({ ...empty, events: 1, buckets: 1 });
    // Freed state is indistinguishable from state never created.
    expect(await storage.claimWidgetPush('acme/quiet', { now: T0 + 20, windowMs: 10 })).toEqual({ send: 'now', windowEndsAt: T0 + 30 });
    const again = { key: 'acme/panel/r2', keyExpiresAt: T0 + 30, rules: [fast], now: T0 + 20, note, accountId: 'acme', event: event(T0 + 30) };
    expect((await storage.admitPress(again)).outcome).toBe('accepted');
  });

  it('purges press keys and claims exactly, whether or not they were added in expiry order', async () => {
    const storage = createMemoryStorage();
    // Events and notes outlive the test: only keys and claims expire here.
    const note = { widgetKey: 'acme/panel', deviceId: 'phone', until: T0 + 1e9 };
    const admit = (key: string, keyExpiresAt: number, now = T0) =>
      storage.admitPress({ key, keyExpiresAt, rules: [], now, note, accountId: 'acme', event: event(T0 + 1e9) });
    // In order: a purge may stop at the first live key, and must still take every expired one.
    await admit('a', T0 + 10);
    await admit('b', T0 + 20);
    await admit('c', T0 + 30);
    expect(await storage.purgeExpired({ now: T0 + 20, batch: 100 })).toBe(2);
    expect(storage.stats().pressKeys).toBe(1);
    // Re-admitted after expiry (c expired at T0 + 30, unpurged): its new key must not
    // shield d, which was added after c's first admission and expires before c's second.
    await admit('d', T0 + 50, T0 + 25);
    await admit('c', T0 + 100, T0 + 40);
    expect(await storage.purgeExpired({ now: T0 + 60, batch: 100 })).toBe(1); // d
    expect(storage.stats().pressKeys).toBe(1);
    // Out of order (a longer lifetime first): the purge reads on past live keys.
    await admit('long', T0 + 1_000, T0 + 60);
    await admit('short', T0 + 200, T0 + 60);
    expect(await storage.purgeExpired({ now: T0 + 200, batch: 100 })).toBe(2); // c and short
    expect(storage.stats().pressKeys).toBe(1);
    await storage.claimWebhookDelivery('e-long', '*', { instanceId: 'i1', now: T0, expiresAt: T0 + 1_000 });
    await storage.claimWebhookDelivery('e-short', '*', { instanceId: 'i1', now: T0, expiresAt: T0 + 10 });
    expect(await storage.purgeExpired({ now: T0 + 10, batch: 100 })).toBe(1);
    expect(storage.stats()).toMatchObject({ pressKeys: 1, deliveryClaims: 1 });
  });

  it('a trailing push never claimed (its instance went away) is freed after a grace period', async () => {
    const storage = createMemoryStorage();
    await storage.claimWidgetPush('acme/busy', { now: T0, windowMs: 2_000 });
    await storage.claimWidgetPush('acme/busy', { now: T0 + 1, windowMs: 2_000 });
    await storage.purgeExpired({ now: T0 + 60_000, batch: 100 });
    expect(storage.stats().throttleWindows).toBe(1);
    await storage.purgeExpired({ now: T0 + 2_000 + 5 * 60_000, batch: 100 });
    expect(storage.stats().throttleWindows).toBe(0);
  });

  it('refuses a token hash that belongs to another account or device', async () => {
    const storage = createMemoryStorage();
    await storage.upsertAccount({ id: 'a', tokenHash: hash(1), subscription: 'active', activityQuota: 1 });
    await storage.upsertAccount({ id: 'b', tokenHash: hash(2), subscription: 'active', activityQuota: 1 });
    await expect(storage.upsertAccount({ id: 'c', tokenHash: hash(1), subscription: 'active', activityQuota: 1 })).rejects.toThrow('token hash');
    await expect(storage.setAccountTokenHash('b', hash(1))).rejects.toThrow('token hash');
    expect((await storage.findAccountByTokenHash(hash(1)))?.id).toBe('a');
    expect((await storage.findAccountByTokenHash(hash(2)))?.id).toBe('b');
    expect(await storage.getAccount('c')).toBeNull();

    await storage.upsertDevice({ id: 'd1', accountId: 'a', tokenHash: hash(3) });
    await expect(storage.upsertDevice({ id: 'd2', accountId: 'a', tokenHash: hash(3) })).rejects.toThrow('token hash');
    // Re-registering the same device with its own hash is fine.
    await storage.upsertDevice({ id: 'd1', accountId: 'b', tokenHash: hash(3) });
    expect((await storage.findDeviceByTokenHash(hash(3)))?.accountId).toBe('b');
  });

  it('keys such as __proto__ stay plain data', async () => {
    const storage = createMemoryStorage();
    await storage.upsertAccount({ id: 'a', tokenHash: hash(1), subscription: 'active', activityQuota: 1 });
    await storage.putWidget({ accountId: 'a', slug: 'w', template: 'switchboard', staleAfter: null, privacy: 'visible' });
    await storage.recordWebhookOutcome('a', 'w', '__proto__', { outcome: 'success', at: 'at' });
    const outcomes = await storage.getWebhookOutcomes('a', 'w');
    expect(Object.keys(outcomes)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(outcomes)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).lastSuccessAt).toBeUndefined();
  });

  it('content with own __proto__ keys is read back as plain data, at every depth', async () => {
    const storage = createMemoryStorage();
    await storage.upsertAccount({ id: 'a', tokenHash: hash(1), subscription: 'active', activityQuota: 1 });
    await storage.putWidget({ accountId: 'a', slug: 'w', template: 'switchboard', staleAfter: null, privacy: 'visible' });
    const text = '{"__proto__":{"polluted":true},"list":[{"__proto__":{"x":1}},{"__proto__":null}],"n":{"__proto__":[1]}}';
    await storage.setWidgetContent('a', 'w', { content: JSON.parse(text), staleAfter: undefined, now: T0 });
    const read = (await storage.getWidget('a', 'w'))!.content as Record<string, unknown>;
    expect(JSON.stringify(read)).toBe(text);
    const objects = [read, ...(read.list as object[]), read.n as object];
    for (const object of objects) {
      expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
      expect(Object.keys(object)).toContain('__proto__');
    }
    expect(read.polluted).toBeUndefined();
    // A copy all the way down: scribbling on it leaves the stored content as it was.
    // biome-ignore lint/suspicious/noProto: an own `__proto__` key (JSON.parse makes one), the point of this test
    ((read.list as Record<string, Record<string, unknown>>[])[0]!.__proto__ as Record<string, unknown>).x = 2;
    expect(JSON.stringify((await storage.getWidget('a', 'w'))!.content)).toBe(text);
  });

  it('close() releases nothing and can be called more than once', async () => {
    const storage = createMemoryStorage();
    await storage.close();
    await storage.close();
    expect(storage.subscribeEvents).toBeUndefined();
  });
});

function event(expiresAt: number) {
  return { id: crypto.randomUUID(), subject: 'widget/panel', type: 'widget.pressed', expiresAt, envelope: {} };
}
