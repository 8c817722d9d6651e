/**
 * `guardUnholdable` on its own, around a fake store that records every call it gets: what
 * reaches the store, and what the guard answers instead. The conformance concern
 * `unholdableValues` holds the real stores (wrapped in it) to the same rule.
 */
import { describe, expect, it } from 'vitest';
import { guardUnholdable, type Storage } from '../../src/storage/index.js';

type Call = [method: string, args: unknown[]];

/**
 * A store whose every method records its call and answers `answers[method]` (called with
 * the arguments), or a token naming the method: enough to see what the guard lets through.
 */
function recordingStore(answers: Record<string, (...args: unknown[]) => unknown> = {}) {
  const calls: Call[] = [];
  const store = new Proxy({} as Storage, {
    get: (_, method) =>
      typeof method !== 'string' || method === 'then'
        ? undefined
        : (...args: unknown[]) => {
            calls.push([method, args]);
            return Promise.resolve(answers[method] ? answers[method](...args) : `answer of ${method}`);
          },
  });
  return { store, calls };
}

const NUL = 'a\u0000b';
const SURROGATE = 'x\ud800';
const CANNOT_HOLD = /no store can hold/;
const at = 1_700_000_000_000;

describe('guardUnholdable', () => {
  it('answers a lookup by a key no store can hold as "nothing found", without asking the store', async () => {
    const { store, calls } = recordingStore();
    const guarded = guardUnholdable(store);
    expect(await guarded.getAccount(NUL)).toBeNull();
    expect(await guarded.findDeviceByTokenHash(SURROGATE)).toBeNull();
    expect(await guarded.getWidget('acme', NUL)).toBeNull();
    expect(await guarded.listWidgets(NUL)).toEqual([]);
    expect(await guarded.lastEventPosition(SURROGATE)).toBe(0);
    expect(await guarded.renewEventStreamSlot('acme', NUL, { now: at, ttlMs: 1_000 })).toBe(false);
    expect(await guarded.listAccounts({ after: NUL, limit: 10 })).toEqual([]);
    expect(await guarded.getWebhookOutcomes('acme', SURROGATE)).toEqual({});
    await expect(guarded.forgetActivityPushToken('phone', 'acme', 'trip', { ifToken: NUL })).resolves.toBeUndefined();
    expect(await guarded.removeApnsRegistration(NUL)).toBe(true);
    expect(await guarded.removeApnsRegistration(NUL, { ifDevice: { accountId: 'acme', tokenHash: 'h' } })).toBe(false);
    expect(await guarded.getFcmToken(SURROGATE)).toBeNull();
    expect(await guarded.removeFcmToken(NUL)).toBe(true);
    expect(await guarded.removeFcmToken(NUL, { ifDevice: { accountId: 'acme', tokenHash: 'h' } })).toBe(false);
    // A token no store can hold is never the one the device holds: nothing removed.
    expect(await guarded.removeFcmToken('phone', { ifToken: SURROGATE })).toBe(false);
    expect(await guarded.getPressTarget(NUL, 'panel', 'hall', 'phone')).toBeNull();
    expect(calls).toEqual([]);
  });

  it('gives each caller its own empty answer', async () => {
    const guarded = guardUnholdable(recordingStore().store);
    const first = await guarded.listWidgets(NUL);
    first.push({} as never);
    expect(await guarded.listWidgets(NUL)).toEqual([]);
  });

  it('refuses a write carrying a value no store can hold, without reaching the store', async () => {
    const { store, calls } = recordingStore();
    const guarded = guardUnholdable(store);
    const writes: [string, () => Promise<unknown>][] = [
      ['upsertAccount', () => guarded.upsertAccount({ id: 'acme', tokenHash: SURROGATE, subscription: 'active', activityQuota: 5 })],
      ['putWidget', () => guarded.putWidget({ accountId: 'acme', slug: SURROGATE, template: 'gauge', staleAfter: null, privacy: 'visible' })],
      ['appendEvent', () => guarded.appendEvent(NUL, { id: 'e1', subject: 'widget/panel', type: 't', expiresAt: at, envelope: {} })],
      ['createIfAbsent', () => guarded.createIfAbsent({ kind: 'device', device: { id: 'phone', accountId: SURROGATE, tokenHash: 'h' } })],
      [
        'admitPress',
        () =>
          guarded.admitPress({
            key: 'k',
            keyExpiresAt: at,
            rules: [
              { key: 'ok', capacity: 1, refillMs: 1 },
              { key: SURROGATE, capacity: 1, refillMs: 1 },
            ],
            now: at,
            note: { widgetKey: 'w', deviceId: 'phone', until: at },
            accountId: 'acme',
            event: { id: 'e1', subject: 'widget/panel', type: 't', expiresAt: at, envelope: {} },
          }),
      ],
      ['claimWebhookDelivery', () => guarded.claimWebhookDelivery('e1', '*', { instanceId: NUL, now: at, expiresAt: at })],
      ['acquireDeviceStreamSlot', () => guarded.acquireDeviceStreamSlot('phone', SURROGATE, { max: 1, now: at, ttlMs: 1 })],
    ];
    for (const [method, write] of writes) {
      await expect(write(), method).rejects.toThrow(TypeError);
      await expect(write(), method).rejects.toThrow(CANNOT_HOLD);
    }
    expect(calls).toEqual([]);
  });

  it('refuses a webhook map holding such a string anywhere, keys included, once the widget is found', async () => {
    const { store, calls } = recordingStore({ getWidget: () => ({ slug: 'panel' }) });
    const guarded = guardUnholdable(store);
    await expect(guarded.setWebhookMap('acme', 'panel', { '*': { url: 'https://example.com/', headers: { a: ['b', SURROGATE] } } })).rejects.toThrow(
      CANNOT_HOLD,
    );
    await expect(guarded.setWebhookMap('acme', 'panel', { [NUL]: { url: 'https://example.com/' } })).rejects.toThrow(CANNOT_HOLD);
    // Only the widget was looked up; the write never reached the store.
    expect(calls.map(([method]) => method)).toEqual(['getWidget', 'getWidget']);
  });

  it('answers a write to a missing record as the store would, before refusing its value', async () => {
    const { store, calls } = recordingStore({ getAccount: () => null, getDevice: () => null, getWidget: () => null });
    const guarded = guardUnholdable(store);
    expect(await guarded.setAccountTokenHash('ghost', NUL)).toBe(false);
    expect(await guarded.setApnsRegistration('ghost', { environment: 'sandbox', widgets: SURROGATE })).toBe(false);
    expect(await guarded.setFcmToken('ghost', NUL)).toBe(false);
    expect(await guarded.setWebhookMap('acme', 'ghost', { [NUL]: {} })).toBe(false);
    await expect(guarded.recordWebhookOutcome('acme', 'ghost', NUL, { outcome: 'success', at: 'now' })).resolves.toBeUndefined();
    expect(calls).toEqual([
      ['getAccount', ['ghost']],
      ['getDevice', ['ghost']],
      ['getDevice', ['ghost']],
      ['getWidget', ['acme', 'ghost']],
      ['getWidget', ['acme', 'ghost']],
    ]);
  });

  it('refuses an FCM token no store can hold for a device that exists, or does not hold its identity', async () => {
    const phone = { id: 'phone', accountId: 'acme', tokenHash: 'h' };
    const { store, calls } = recordingStore({ getDevice: (id) => (id === 'phone' ? phone : null) });
    const guarded = guardUnholdable(store);
    await expect(guarded.setFcmToken('phone', SURROGATE)).rejects.toThrow(CANNOT_HOLD);
    // The device no longer has the identity the request authenticated with: false, as the store answers.
    expect(await guarded.setFcmToken('phone', NUL, { ifDevice: { accountId: 'acme', tokenHash: 'old' } })).toBe(false);
    expect(calls).toEqual([
      ['getDevice', ['phone']],
      ['getDevice', ['phone']],
    ]);
  });

  it('answers a guarded publish to a record that cannot exist in the order credential, then missing', async () => {
    const account = { id: 'acme', tokenHash: 'h1', subscription: 'active', activityQuota: 5 };
    const { store, calls } = recordingStore({ getAccount: (id) => (id === 'acme' ? account : null) });
    const guarded = guardUnholdable(store);
    const write = (tokenHash?: string) => ({ content: {}, staleAfter: undefined, now: at, guard: tokenHash === undefined ? undefined : { tokenHash } });
    expect(await guarded.setWidgetContent('acme', NUL, write())).toEqual({ ok: false, reason: 'not_found' });
    expect(await guarded.setWidgetContent('acme', NUL, write('h1'))).toEqual({ ok: false, reason: 'not_found' });
    expect(await guarded.setWidgetContent('acme', NUL, write('h2'))).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await guarded.setWidgetContent('acme', 'panel', write(SURROGATE))).toEqual({ ok: false, reason: 'credential_changed' });
    expect(await guarded.applyActivityUpdate(NUL, 'trip', { state: 'ONGOING', content: {}, now: at, guard: { tokenHash: 'h1' } })).toEqual({
      ok: false,
      reason: 'credential_changed',
    });
    expect(calls.map(([method]) => method)).toEqual(['getAccount', 'getAccount']);
  });

  it('passes a clean call through unchanged: the same arguments, the store’s own answer', async () => {
    const { store, calls } = recordingStore();
    const guarded = guardUnholdable(store);
    const update = { content: { a: '\u00e9' }, staleAfter: undefined, now: at, guard: { tokenHash: 'h1', template: 'gauge' } };
    const press = {
      key: 'k',
      keyExpiresAt: at,
      rules: [{ key: 'acme', capacity: 1, refillMs: 1 }],
      now: at,
      note: { widgetKey: 'w', deviceId: 'phone', until: at },
      accountId: 'acme',
      event: { id: 'e1', subject: 'widget/panel', type: 't', expiresAt: at, envelope: { text: 'a\u0000b' } },
    };
    const query = { accounts: [{ accountId: 'acme', tokenHash: 'h1' }], devices: [] };
    const map = { '*': { url: 'https://example.com/' } };
    expect(await guarded.getAccount('acme')).toBe('answer of getAccount');
    expect(await guarded.setWidgetContent('acme', 'panel', update)).toBe('answer of setWidgetContent');
    expect(await guarded.admitPress(press)).toBe('answer of admitPress');
    expect(await guarded.getPressTarget('acme', 'panel', 'hall', 'phone')).toBe('answer of getPressTarget');
    expect(await guarded.checkCredentials(query)).toBe('answer of checkCredentials');
    expect(await guarded.setWebhookMap('acme', 'panel', map)).toBe('answer of setWebhookMap');
    expect(await guarded.purgeExpired({ now: at, batch: 10 })).toBe('answer of purgeExpired');
    expect(calls).toEqual([
      ['getAccount', ['acme']],
      ['setWidgetContent', ['acme', 'panel', update]],
      ['admitPress', [press]],
      ['getPressTarget', ['acme', 'panel', 'hall', 'phone']],
      ['checkCredentials', [query]],
      ['setWebhookMap', ['acme', 'panel', map]],
      ['purgeExpired', [{ now: at, batch: 10 }]],
    ]);
    // The very objects, not copies: the hot paths stay as cheap as the store makes them.
    expect(calls[1]![1][2]).toBe(update);
    expect(calls[2]![1][0]).toBe(press);
  });

  it('asks the store only of the credentials that can hold, and answers the others false', async () => {
    const { store, calls } = recordingStore({
      checkCredentials: (query) => ({ accounts: (query as { accounts: unknown[] }).accounts.map(() => true), devices: [true] }),
    });
    const guarded = guardUnholdable(store);
    const answer = await guarded.checkCredentials({
      accounts: [
        { accountId: NUL, tokenHash: 'h1' },
        { accountId: 'acme', tokenHash: 'h1' },
      ],
      devices: [
        { deviceId: 'phone', tokenHash: 'd1' },
        { deviceId: 'phone', tokenHash: SURROGATE },
      ],
    });
    expect(answer).toEqual({ accounts: [false, true], devices: [true, false] });
    expect(calls).toEqual([['checkCredentials', [{ accounts: [{ accountId: 'acme', tokenHash: 'h1' }], devices: [{ deviceId: 'phone', tokenHash: 'd1' }] }]]]);
  });

  it('leaves the ids no store can hold out of a batch read, and reads nothing for an activity that cannot exist', async () => {
    const { store, calls } = recordingStore({
      getApnsRegistrations: () => new Map([['phone', 'registration']]),
      getActivityPushTargets: () => new Map([['phone', 'target']]),
      getFcmTokens: () => new Map([['phone', 'token']]),
    });
    const guarded = guardUnholdable(store);
    const clean = ['phone', 'tablet'];
    expect(await guarded.getApnsRegistrations!(clean)).toEqual(new Map([['phone', 'registration']]));
    expect(await guarded.getApnsRegistrations!([NUL, 'phone', SURROGATE])).toEqual(new Map([['phone', 'registration']]));
    expect(await guarded.getActivityPushTargets!('acme', 'trip', ['phone', NUL])).toEqual(new Map([['phone', 'target']]));
    expect(await guarded.getFcmTokens!([SURROGATE, 'tablet'])).toEqual(new Map([['phone', 'token']]));
    // Nothing left to read, or an activity no store can hold: an empty answer, the store not asked.
    expect(await guarded.getApnsRegistrations!([NUL])).toEqual(new Map());
    expect(await guarded.getFcmTokens!([SURROGATE, NUL])).toEqual(new Map());
    expect(await guarded.getActivityPushTargets!(NUL, 'trip', ['phone'])).toEqual(new Map());
    expect(await guarded.getActivityPushTargets!('acme', SURROGATE, ['phone'])).toEqual(new Map());
    expect(calls).toEqual([
      ['getApnsRegistrations', [clean]],
      ['getApnsRegistrations', [['phone']]],
      ['getActivityPushTargets', ['acme', 'trip', ['phone']]],
      ['getFcmTokens', [['tablet']]],
    ]);
    // A clean batch is passed on as it is, not copied.
    expect(calls[0]![1][0]).toBe(clean);
  });

  it('keeps the store’s extras and leaves an optional method it lacks absent', async () => {
    class CountingStore {
      count = 0;
      async getAccount(id: string) {
        this.count += 1; // a class's method: called on the store itself
        return { id, tokenHash: 'h', subscription: 'active' as const, activityQuota: 1 };
      }
    }
    const inner = Object.assign(new CountingStore(), { stats: () => 'stats' }) as unknown as Storage & CountingStore & { stats(): string };
    const guarded = guardUnholdable(inner);
    expect(guarded.stats()).toBe('stats');
    expect((await guarded.getAccount('acme'))?.id).toBe('acme');
    expect(inner.count).toBe(1);
    expect('countEvents' in guarded).toBe(false);
    expect('subscribeEvents' in guarded).toBe(false);
    expect('getApnsRegistrations' in guarded).toBe(false);
  });
});
