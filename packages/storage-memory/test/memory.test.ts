import { DEAD_LETTER_TTL_MS } from '@tilecast/core/storage';
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
  deliveryClaims: 0,
  deliveryJobs: 0,
  deadLetters: 0,
  apnsRegistrations: 0,
  activityPushTokens: 0,
  fcmTokens: 0,
  activityChannels: 0,
  channelFollowers: 0,
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
    await storage.setWidgetContent('acme', 'panel', { content: {}, staleAfter: undefined, now: T0 });
    await storage.setWidgetContent('other', 'panel', { content: {}, staleAfter: undefined, now: T0 });
    await storage.upsertDevice({ id: 'acme-phone', accountId: 'acme', tokenHash: hash(3) });
    await storage.upsertDevice({ id: 'other-phone', accountId: 'other', tokenHash: hash(4) });
    await storage.shareWidget('other', 'panel', 'acme-phone');
    await storage.shareWidget('acme', 'panel', 'other-phone');
    await storage.appendEvent('acme', event(T0));
    await storage.acquireEventStreamSlot('acme', 'lease', { max: 4, now: T0, ttlMs: 1_000 });
    await storage.acquireDeviceStreamSlot('acme-phone', 'lease', { max: 4, now: T0, ttlMs: 1_000 });
    await storage.setFcmToken('acme-phone', 'acme-phone:fcm');
    await storage.setFcmToken('other-phone', 'other-phone:fcm');
    await storage.setActivityChannel('acme', 'build', 'sandbox', 'acme-channel');
    await storage.setApnsRegistration('acme-phone', { environment: 'sandbox', channels: true });

    expect(storage.stats()).toMatchObject({ deliveryJobs: 3, activityChannels: 1, channelFollowers: 1 });

    await storage.deleteAccount('acme');

    expect(storage.stats()).toEqual({ ...empty, accounts: 1, widgets: 1, devices: 1, deliveryJobs: 1, fcmTokens: 1 });
    await storage.deleteAccount('other');
    expect(storage.stats()).toEqual(empty);
  });

  it('purgeExpired frees expired rows, dead letters after their 7 days and full token buckets', async () => {
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
    const letter = { accountId: 'acme', kind: 'widget', slug: 'panel', deviceId: 'phone', transport: 'apns', reason: 'refused: BadTopic' } as const;
    await storage.addDeadLetters([
      { ...letter, at: T0 + 10 - DEAD_LETTER_TTL_MS },
      { ...letter, at: T0 + 11 - DEAD_LETTER_TTL_MS },
    ]);
    expect(storage.stats()).toMatchObject({
      events: 2,
      pressKeys: 1,
      eventStreamSlots: 1,
      deviceStreamSlots: 1,
      deliveryClaims: 1,
      buckets: 2,
      deadLetters: 2,
    });

    expect(await storage.purgeExpired({ now: T0 + 10, batch: 100 })).toBe(6);
    expect(storage.stats()).toEqual({ ...empty, events: 1, buckets: 1, deadLetters: 1 });
    expect(await storage.purgeExpired({ now: T0 + 20, batch: 100 })).toBe(1);
    expect(storage.stats()).toEqual({ ...empty, events: 1, buckets: 1 });
    // Freed state is indistinguishable from state never created.
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

  it('holds a job per resource while it is pending, and none once it is done or its resource is gone', async () => {
    const storage = createMemoryStorage();
    await storage.upsertAccount({ id: 'acme', tokenHash: hash(1), subscription: 'active', activityQuota: 3 });
    await storage.putWidget({ accountId: 'acme', slug: 'panel', template: 'switchboard', staleAfter: null, privacy: 'visible' });
    await storage.putActivity({ accountId: 'acme', slug: 'panel', template: 'progress', dismissalDelayS: 0 });
    // A widget and an activity of the same slug each have their own job; a newer update replaces it.
    await storage.applyActivityUpdate('acme', 'panel', { state: 'ONGOING', content: {}, now: T0 });
    for (let i = 1; i <= 3; i++) await storage.setWidgetContent('acme', 'panel', { content: { i }, staleAfter: undefined, now: T0 + i });
    expect(storage.stats().deliveryJobs).toBe(2);

    // Oldest due first: the activity's.
    const [activityJob, widgetJob] = await storage.claimDueDeliveryJobs({ instanceId: 'i1', now: T0 + 5, leaseMs: 30_000, limit: 2 });
    expect([activityJob?.kind, widgetJob?.kind]).toEqual(['activity', 'widget']);
    expect(await storage.completeDeliveryJob({ ...widgetJob!, instanceId: 'i1' })).toBe(true);
    expect(storage.stats().deliveryJobs).toBe(1);
    expect(await storage.deleteActivity('acme', 'panel')).toBe(true);
    expect(storage.stats().deliveryJobs).toBe(0);
  });

  it('lists channel followers in code-unit order through any mix of registrations and removals', async () => {
    const storage = createMemoryStorage();
    await storage.upsertAccount({ id: 'acme', tokenHash: hash(1), subscription: 'active', activityQuota: 1 });
    const expected = { production: new Set<string>(), sandbox: new Set<string>() };
    const ids = ['b', 'a', 'B', 'é', 'aa', '\u{1F600}', '\uFF21', 'z', '0', 'ab', 'A'];
    for (const [i, id] of ids.entries()) await storage.upsertDevice({ id, accountId: 'acme', tokenHash: hash(100 + i) });
    // A fixed pseudo-random walk: follow, move, stop following, re-follow and remove, listing in between.
    let seed = 7;
    for (let step = 0; step < 400; step++) {
      seed = (seed * 48_271) % 2_147_483_647;
      const id = ids[seed % ids.length]!;
      const environment = seed % 3 === 0 ? 'production' : 'sandbox';
      const action = (seed >> 4) % 4;
      expected.production.delete(id);
      expected.sandbox.delete(id);
      if (action === 0) await storage.removeApnsRegistration(id);
      else if (action === 1) await storage.setApnsRegistration(id, { environment, channels: false });
      else {
        await storage.setApnsRegistration(id, { environment, channels: true });
        expected[environment].add(id);
      }
      if (step % 3 === 0) {
        const sorted = (set: Set<string>) => [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        expect(await storage.listChannelFollowers('acme', ['sandbox'])).toEqual(sorted(expected.sandbox));
        expect(await storage.listChannelFollowers('acme', ['production', 'sandbox'])).toEqual(sorted(new Set([...expected.production, ...expected.sandbox])));
      }
    }
    expect(storage.stats().channelFollowers).toBe(expected.production.size + expected.sandbox.size);
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
