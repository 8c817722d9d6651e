import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../test/support/manual-clock.js';
import type { CoreRequest } from '../../src/adapter.js';
import { createRecordingTransport, createTilecast, type DeviceTransport, type PushResult, silentLogger, type Storage } from '../../src/index.js';

const DEVICES = 1_200;
const deviceIds = Array.from({ length: DEVICES }, (_, i) => `d${String(i).padStart(4, '0')}`);

const patchActivity = (token: string, state: 'ONGOING' | 'IDLE', score: number): CoreRequest => ({
  method: 'PATCH',
  path: '/activity/game',
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
  body: { kind: 'parsed', value: { state, content: { template: 'progress', progress: { value: score / 10 }, header_left: { value: `score ${score}` } } } },
});

const patchWidget = (token: string, label: string): CoreRequest => ({
  method: 'PATCH',
  path: '/widget/lights',
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
  body: { kind: 'parsed', value: { content: { template: 'switchboard', actions: [{ id: 'bell', label }] } } },
});

/** A transport whose pushes never settle: an instance that dies with them in flight. */
const hanging: DeviceTransport = { pushActivity: () => new Promise<PushResult>(() => {}), pushWidget: () => new Promise<PushResult>(() => {}) };

async function seeded(storage: Storage, instance: ReturnType<typeof createTilecast>) {
  const { token } = await instance.management.createAccount({ id: 'acme' });
  for (const id of deviceIds) await instance.management.registerDevice({ id, account: 'acme' });
  await instance.management.createActivity({ account: 'acme', slug: 'game', template: 'progress' });
  await instance.management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
  void storage;
  return token;
}

const instance = (storage: Storage, transport: DeviceTransport, clock = createManualClock(), instanceId = 'a') =>
  createTilecast({ storage, transport, clock, logger: silentLogger, purgeIntervalMs: 0, delivery: { instanceId, pollMs: 2_000, leaseMs: 30_000 } });

/** Lets promise chains and setImmediate turns run until the store says the jobs are done (bounded). */
async function settle(storage: Storage, rounds = 200): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    await new Promise((resolve) => setImmediate(resolve));
    if ((await storage.deliveryJobStats()).pending === 0) return;
  }
}

describe('delivery jobs (docs/contract/durable-delivery.md)', () => {
  it('sends an accepted update to every device and marks its job done', async () => {
    const storage = createMemoryStorage();
    const transport = createRecordingTransport();
    const a = instance(storage, transport);
    const token = await seeded(storage, a);
    expect(await a.handle(patchActivity(token, 'ONGOING', 1))).toMatchObject({ status: 200 });
    await a.idle();
    expect(transport.pushes).toHaveLength(DEVICES);
    expect(new Set(transport.pushes.map((p) => p.deviceId)).size).toBe(DEVICES);
    expect(await storage.listDeliveryJobs({ limit: 10 })).toEqual([]);
    await a.close();
  });

  it('resumes a dead instance’s job from its last recorded batch once its lease lapses', async () => {
    const storage = createMemoryStorage();
    // A: the first batch is delivered, then the pushes hang as if the process died mid-batch.
    let handed = 0;
    const dying: DeviceTransport = {
      pushActivity: (deviceId, push) => (++handed <= 500 ? Promise.resolve('delivered') : hanging.pushActivity(deviceId, push)),
      pushWidget: hanging.pushWidget,
    };
    const clockA = createManualClock();
    const a = instance(storage, dying, clockA, 'a');
    const token = await seeded(storage, a);
    await a.handle(patchActivity(token, 'ONGOING', 1));
    for (let i = 0; i < 100 && (await storage.listDeliveryJobs({ limit: 1 }))[0]?.cursor !== deviceIds[499]; i++) await new Promise((r) => setImmediate(r));
    expect((await storage.listDeliveryJobs({ limit: 1 }))[0]).toMatchObject({ cursor: deviceIds[499], leasedBy: 'a' });

    // B shares the store; its clock moves past A's lease, which A (dead) never renews.
    const clockB = createManualClock(clockA.now());
    const recorded = createRecordingTransport();
    const b = instance(storage, recorded, clockB, 'b');
    // B polls every 2 s; each poll reschedules itself once the store answered.
    const pollFor = async (ms: number) => {
      for (let waited = 0; waited < ms; waited += 2_000) {
        clockB.advance(2_000);
        for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
      }
    };
    await pollFor(26_000);
    expect(recorded.pushes).toHaveLength(0); // the lease still holds
    await pollFor(6_000);
    await settle(storage);
    await b.idle();
    expect(recorded.pushes.map((p) => p.deviceId)).toEqual(deviceIds.slice(500));
    expect(recorded.pushes.every((p) => p.kind === 'activity' && p.push.phase === 'start')).toBe(true);
    expect(await storage.listDeliveryJobs({ limit: 10 })).toEqual([]);
    await b.close();
  });

  it('hands its unfinished jobs back at shutdown, for another instance to take at once', async () => {
    const storage = createMemoryStorage();
    const clock = createManualClock();
    const a = instance(storage, hanging, clock, 'a');
    const token = await seeded(storage, a);
    await a.handle(patchActivity(token, 'ONGOING', 1));
    await new Promise((r) => setImmediate(r));
    expect(await a.handBackDeliveries()).toBe(1);
    expect((await storage.listDeliveryJobs({ limit: 1 }))[0]).toMatchObject({ leasedBy: null, cursor: '' });
    const recorded = createRecordingTransport();
    const b = instance(storage, recorded, createManualClock(clock.now()), 'b');
    const [job] = await storage.claimDueDeliveryJobs({ instanceId: 'b', now: clock.now(), leaseMs: 30_000, limit: 5 });
    expect(job).toMatchObject({ leasedBy: 'b', resumed: 0 });
    await b.close();
  });

  it('sends a widget’s latest content once at the end of its window, however many updates came in it', async () => {
    const storage = createMemoryStorage();
    const clock = createManualClock();
    const transport = createRecordingTransport();
    const a = instance(storage, transport, clock);
    const token = await seeded(storage, a);
    await a.handle(patchWidget(token, 'one'));
    await a.idle();
    expect(transport.pushes).toHaveLength(DEVICES);
    transport.clear();
    let claims = 0;
    const claim = storage.claimDeliveryJob.bind(storage);
    storage.claimDeliveryJob = (...args) => {
      claims += 1;
      return claim(...args);
    };
    for (const label of ['two', 'three', 'four']) await a.handle(patchWidget(token, label));
    await a.idle();
    expect(transport.pushes).toHaveLength(0);
    clock.advance(2_000);
    // One timer per widget: three updates in the window cost one claim at its end.
    await a.idle();
    expect(claims).toBe(1);
    await settle(storage);
    await a.idle();
    expect(transport.pushes).toHaveLength(DEVICES);
    const labels = transport.pushes.map((p) => (p.push.content as { actions: { label: string }[] }).actions[0]!.label);
    expect(new Set(labels)).toEqual(new Set(['four']));
    await a.close();
  });

  it('keeps a push that failed for good as a dead letter with its reason, not a removed token', async () => {
    const storage = createMemoryStorage();
    const refusing: DeviceTransport = {
      name: 'apns',
      pushActivity: (deviceId) =>
        Promise.resolve<PushResult>(
          deviceId === deviceIds[3]
            ? { outcome: 'refused', reason: 'BadTopic' }
            : deviceId === deviceIds[4]
              ? 'token_removed'
              : deviceId === deviceIds[5]
                ? 'dropped'
                : 'delivered',
        ),
      pushWidget: () => Promise.resolve('delivered'),
    };
    const a = instance(storage, refusing);
    const token = await seeded(storage, a);
    await a.handle(patchActivity(token, 'ONGOING', 1));
    await a.idle();
    const letters = await storage.listDeadLetters({ limit: 10 });
    const byDevice = letters
      .map(({ deviceId, transport, reason, kind, slug }) => ({ deviceId, transport, reason, kind, slug }))
      .sort((x, y) => (x.deviceId < y.deviceId ? -1 : 1));
    expect(byDevice).toEqual([
      { deviceId: deviceIds[3], transport: 'apns', reason: 'refused: BadTopic', kind: 'activity', slug: 'game' },
      { deviceId: deviceIds[5], transport: 'apns', reason: 'dropped', kind: 'activity', slug: 'game' },
    ]);
    await a.close();
  });
});
