/**
 * `apnsRegistryFrom`: a fan-out's lookups go to the store's batch reads when it has them
 * (one read per turn's pushes, and one per activity for its updates), to the single reads
 * otherwise; nothing read is kept for a later lookup.
 */
import type { ApnsStore, Storage } from '@tilecast/core/storage';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { apnsRegistryFrom } from '@tilecast/transport-apns';
import { afterEach, describe, expect, it } from 'vitest';
import { activity, BUNDLE_ID, KEY_ID, T0, TEAM_ID, testSigningKey, TOKENS, transportTo, widget } from './support.js';
import { startApnsDouble, type ApnsDouble } from '@tilecast/transport-apns/test-double';

type Call = [method: string, args: unknown[]];

/** A memory store whose APNs reads are recorded; `without` leaves those methods out (a third-party store). */
function recordedStore(without: (keyof ApnsStore)[] = []) {
  const storage = createMemoryStorage();
  const calls: Call[] = [];
  const recorded = { ...storage } as Record<string, unknown>;
  for (const method of ['getApnsRegistration', 'getActivityPushToken', 'getApnsRegistrations', 'getActivityPushTargets'] as const) {
    const inner = storage[method] as (...args: unknown[]) => Promise<unknown>;
    recorded[method] = (...args: unknown[]) => {
      calls.push([method, args.map((arg) => (Array.isArray(arg) ? [...arg] : arg))]);
      return inner(...args);
    };
  }
  for (const method of without) delete recorded[method];
  return { storage, store: recorded as unknown as Storage, calls };
}

/** Account `acme` with activity `build` and devices `phone` (registered, with `build`'s token), `bare` (registered, no token) and `new` (not registered). */
async function fleet(storage: Storage): Promise<void> {
  await storage.upsertAccount({ id: 'acme', tokenHash: 'h', subscription: 'active', activityQuota: 5 });
  for (const slug of ['build', 'deploy']) await storage.putActivity({ accountId: 'acme', slug, template: 'progress', dismissalDelayS: 30 });
  for (const id of ['phone', 'bare', 'new']) await storage.upsertDevice({ id, accountId: 'acme', tokenHash: `h-${id}` });
  await storage.setApnsRegistration('phone', { environment: 'sandbox', pushToStart: TOKENS.start, widgets: TOKENS.widgets });
  await storage.setActivityPushToken('phone', 'acme', 'build', TOKENS.update);
  await storage.setApnsRegistration('bare', { environment: 'production', widgets: TOKENS.otherWidgets });
  await storage.setActivityPushToken('bare', 'acme', 'deploy', TOKENS.otherStart);
}

describe('apnsRegistryFrom', () => {
  it('reads the registrations looked up together in one batch, each caller answered with its own', async () => {
    const { storage, store, calls } = recordedStore();
    await fleet(storage);
    const registry = apnsRegistryFrom(store);
    const answers = await Promise.all(['phone', 'new', 'bare', 'missing'].map((id) => registry.registrationsOf(id)));
    expect(answers).toEqual([
      { environment: 'sandbox', pushToStart: TOKENS.start, widgets: TOKENS.widgets, channels: false },
      null,
      { environment: 'production', pushToStart: null, widgets: TOKENS.otherWidgets, channels: false },
      null,
    ]);
    expect(calls).toEqual([['getApnsRegistrations', [['phone', 'new', 'bare', 'missing']]]]);
  });

  it("reads an activity's targets in one batch per activity: registration and that activity's token together", async () => {
    const { storage, store, calls } = recordedStore();
    await fleet(storage);
    const registry = apnsRegistryFrom(store);
    const answers = await Promise.all([
      registry.activityTargetOf!('phone', 'acme', 'build'),
      registry.activityTargetOf!('bare', 'acme', 'deploy'),
      registry.activityTargetOf!('bare', 'acme', 'build'),
      registry.activityTargetOf!('new', 'acme', 'build'),
    ]);
    expect(answers).toEqual([
      { registrations: { environment: 'sandbox', pushToStart: TOKENS.start, widgets: TOKENS.widgets, channels: false }, token: TOKENS.update },
      { registrations: { environment: 'production', pushToStart: null, widgets: TOKENS.otherWidgets, channels: false }, token: TOKENS.otherStart },
      { registrations: { environment: 'production', pushToStart: null, widgets: TOKENS.otherWidgets, channels: false }, token: null },
      null,
    ]);
    expect(calls).toEqual([
      ['getActivityPushTargets', ['acme', 'build', ['phone', 'bare', 'new']]],
      ['getActivityPushTargets', ['acme', 'deploy', ['bare']]],
    ]);
  });

  it('keeps nothing read: a token APNs refused is not answered to a later lookup', async () => {
    const { storage, store } = recordedStore();
    await fleet(storage);
    const registry = apnsRegistryFrom(store);
    expect((await registry.registrationsOf('phone'))?.widgets).toBe(TOKENS.widgets);
    expect((await registry.activityTargetOf!('phone', 'acme', 'build'))?.token).toBe(TOKENS.update);
    await registry.removeToken('phone', TOKENS.widgets);
    await registry.removeToken('phone', TOKENS.update);
    expect((await registry.registrationsOf('phone'))?.widgets).toBeNull();
    expect((await registry.activityTargetOf!('phone', 'acme', 'build'))?.token).toBeNull();
  });

  it("rejects every lookup of a batch whose read fails with the store's error", async () => {
    const { storage, store } = recordedStore();
    await fleet(storage);
    const failure = new Error('store unavailable');
    const registry = apnsRegistryFrom({ ...store, getApnsRegistrations: () => Promise.reject(failure) });
    const results = await Promise.allSettled([registry.registrationsOf('phone'), registry.registrationsOf('bare')]);
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
    ]);
  });

  it('reads a store without the batch reads one device at a time, and has no activityTargetOf', async () => {
    const { storage, store, calls } = recordedStore(['getApnsRegistrations', 'getActivityPushTargets']);
    await fleet(storage);
    const registry = apnsRegistryFrom(store);
    expect(registry.activityTargetOf).toBeUndefined();
    await Promise.all([registry.registrationsOf('phone'), registry.registrationsOf('bare'), registry.activityTokenOf('phone', 'acme', 'build')]);
    expect(calls).toEqual([
      ['getApnsRegistration', ['phone']],
      ['getApnsRegistration', ['bare']],
      ['getActivityPushToken', ['phone', 'acme', 'build']],
    ]);
  });
});

describe('the transport with a store registry', () => {
  let double: ApnsDouble | undefined;
  afterEach(async () => {
    await double?.close();
    double = undefined;
  });

  it("looks a fan-out's devices up in batches, and an update's registration and token in one read", async () => {
    const { storage, store, calls } = recordedStore();
    await fleet(storage);
    const devices = Array.from({ length: 40 }, (_, i) => `fan-${String(i).padStart(2, '0')}`);
    for (const id of devices) {
      await storage.upsertDevice({ id, accountId: 'acme', tokenHash: `h-${id}` });
      await storage.setApnsRegistration(id, { environment: 'sandbox', widgets: TOKENS.widgets });
      await storage.setActivityPushToken(id, 'acme', 'build', TOKENS.update);
    }
    const { privateKey, publicKey } = testSigningKey();
    double = await startApnsDouble({ teamId: TEAM_ID, keyId: KEY_ID, bundleId: BUNDLE_ID, publicKey });
    const transport = transportTo(double, apnsRegistryFrom(store), privateKey, { connectionThread: 'main' });
    try {
      expect(new Set(await Promise.all(devices.map((id) => transport.pushWidget(id, widget()))))).toEqual(new Set(['delivered']));
      const update = activity('update', T0);
      expect(new Set(await Promise.all(devices.map((id) => transport.pushActivity(id, update))))).toEqual(new Set(['delivered']));
    } finally {
      await transport.close();
    }
    const methods = calls.map(([method]) => method);
    // No single read; a batch holds at least the pushes started in one turn (8: docs/decisions/0058-apns-pacing.md).
    expect(methods.filter((method) => method === 'getApnsRegistration' || method === 'getActivityPushToken')).toEqual([]);
    const widgetReads = calls.filter(([method]) => method === 'getApnsRegistrations').map(([, [ids]]) => ids as string[]);
    const updateReads = calls.filter(([method]) => method === 'getActivityPushTargets').map(([, args]) => args[2] as string[]);
    for (const reads of [widgetReads, updateReads]) {
      expect(reads.flat().sort()).toEqual(devices);
      expect(reads.length).toBeLessThanOrEqual(devices.length / 8);
    }
  });
});
