import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../test/support/manual-clock.js';
import type { CoreRequest } from '../../src/adapter.js';
import { holds, withoutReached } from '../../src/delivery/broadcast-plan.js';
import { JobRunner, type StreamReach } from '../../src/delivery/job-runner.js';
import {
  type ActivityBroadcast,
  type ActivityPush,
  type BroadcastResult,
  createTilecast,
  type DeviceTransport,
  silentLogger,
  type Storage,
} from '../../src/index.js';

const patch = (token: string, state: 'ONGOING' | 'IDLE', score: number): CoreRequest => ({
  method: 'PATCH',
  path: '/activity/game',
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
  body: { kind: 'parsed', value: { state, content: { template: 'progress', progress: { value: score / 10 }, header_left: { value: `score ${score}` } } } },
});

/**
 * A transport that broadcasts as APNs would: a start makes (and stores) a channel per
 * environment asked for, an update or end covers the environments asked for unless told
 * to fail. Records every broadcast and every per-device push.
 */
function broadcastingTransport(storage: Storage, options: { failBroadcasts?: boolean; throws?: boolean } = {}) {
  const broadcasts: ActivityBroadcast[] = [];
  const pushes: Array<{ deviceId: string; push: ActivityPush }> = [];
  let made = 0;
  const transport: DeviceTransport = {
    name: 'apns',
    async pushActivity(deviceId, push) {
      pushes.push({ deviceId, push });
      return 'delivered';
    },
    pushWidget: async () => 'delivered',
    async broadcastActivity(broadcast): Promise<BroadcastResult> {
      broadcasts.push(broadcast);
      if (options.throws) throw new Error('boom');
      const { owner, slug, phase } = broadcast.push;
      const channels = { ...broadcast.push.channels! };
      if (phase === 'start') {
        for (const environment of ['production', 'sandbox'] as const) {
          const id = broadcast.environments.includes(environment) ? `ch${++made}` : null;
          await storage.setActivityChannel(owner, slug, environment, id);
          channels[environment] = id;
        }
        return { covered: [], channels };
      }
      return { covered: options.failBroadcasts ? [] : broadcast.environments, channels };
    },
  };
  return { transport, broadcasts, pushes };
}

const DEVICES = ['d0', 'd1', 'd2', 'd3', 'd4', 'd5'];
/** d0–d2 follow channels in production, d3 in sandbox, d4 registered without channels, d5 has no APNs registration. */
async function seeded(storage: Storage, transport: DeviceTransport, delivery: 'tokens' | 'broadcast' = 'broadcast') {
  const tilecast = createTilecast({
    storage,
    transport,
    clock: createManualClock(),
    logger: silentLogger,
    purgeIntervalMs: 0,
    delivery: { instanceId: 'a', pollMs: 0 },
  });
  const { token } = await tilecast.management.createAccount({ id: 'acme' });
  for (const id of DEVICES) await tilecast.management.registerDevice({ id, account: 'acme' });
  for (const id of ['d0', 'd1', 'd2']) await storage.setApnsRegistration(id, { environment: 'production', pushToStart: 'aa11', channels: true });
  await storage.setApnsRegistration('d3', { environment: 'sandbox', pushToStart: 'bb22', channels: true });
  await storage.setApnsRegistration('d4', { environment: 'production', pushToStart: 'cc33' });
  await storage.putActivity({ accountId: 'acme', slug: 'game', template: 'progress', dismissalDelayS: 0, delivery });
  return { tilecast, token };
}

const devicesOf = (pushes: Array<{ deviceId: string }>) => pushes.map((p) => p.deviceId).sort();

describe('broadcast activities (docs/contract/broadcast-channels.md)', () => {
  it('a start makes channels for the environments in use and reaches every device per device, naming the channels', async () => {
    const storage = createMemoryStorage();
    const { transport, broadcasts, pushes } = broadcastingTransport(storage);
    const { tilecast, token } = await seeded(storage, transport);
    expect(await tilecast.handle(patch(token, 'ONGOING', 1))).toMatchObject({ status: 200 });
    await tilecast.idle();
    expect(broadcasts).toHaveLength(1);
    expect(broadcasts[0]).toMatchObject({ push: { phase: 'start' }, frequentUpdates: false, environments: ['production', 'sandbox'] });
    expect(devicesOf(pushes)).toEqual(DEVICES);
    for (const { push } of pushes) expect(push).toMatchObject({ phase: 'start', channels: { production: 'ch1', sandbox: 'ch2' } });
    await tilecast.close();
  });

  it('an update is one broadcast; only devices no broadcast reached get per-device pushes', async () => {
    const storage = createMemoryStorage();
    const { transport, broadcasts, pushes } = broadcastingTransport(storage);
    const { tilecast, token } = await seeded(storage, transport);
    await tilecast.handle(patch(token, 'ONGOING', 1));
    await tilecast.idle();
    pushes.length = 0;
    await tilecast.handle(patch(token, 'ONGOING', 2));
    await tilecast.idle();
    expect(broadcasts.map((b) => [b.push.phase, b.environments])).toEqual([
      ['start', ['production', 'sandbox']],
      ['update', ['production', 'sandbox']],
    ]);
    expect(devicesOf(pushes)).toEqual(['d4', 'd5']);
    await tilecast.handle(patch(token, 'IDLE', 3));
    await tilecast.idle();
    expect(broadcasts[2]).toMatchObject({ push: { phase: 'end', dismissal_delay_s: 0 } });
    expect(devicesOf(pushes)).toEqual(['d4', 'd4', 'd5', 'd5']);
    await tilecast.close();
  });

  it('an environment the broadcast did not cover keeps its per-device pushes', async () => {
    const storage = createMemoryStorage();
    const { transport, pushes } = broadcastingTransport(storage, { failBroadcasts: true });
    const { tilecast, token } = await seeded(storage, transport);
    await tilecast.handle(patch(token, 'ONGOING', 1));
    await tilecast.idle();
    pushes.length = 0;
    await tilecast.handle(patch(token, 'ONGOING', 2));
    await tilecast.idle();
    expect(devicesOf(pushes)).toEqual(DEVICES);
    await tilecast.close();
  });

  it('a broadcast that throws reaches nobody: every device gets its push', async () => {
    const storage = createMemoryStorage();
    const { transport, pushes } = broadcastingTransport(storage, { throws: true });
    const { tilecast, token } = await seeded(storage, transport);
    await tilecast.handle(patch(token, 'ONGOING', 1));
    await tilecast.idle();
    await tilecast.handle(patch(token, 'ONGOING', 2));
    await tilecast.idle();
    expect(devicesOf(pushes.filter((p) => p.push.phase === 'update'))).toEqual(DEVICES);
    await tilecast.close();
  });

  it('an activity with token delivery never broadcasts', async () => {
    const storage = createMemoryStorage();
    const { transport, broadcasts, pushes } = broadcastingTransport(storage);
    const { tilecast, token } = await seeded(storage, transport, 'tokens');
    await tilecast.handle(patch(token, 'ONGOING', 1));
    await tilecast.idle();
    await tilecast.handle(patch(token, 'ONGOING', 2));
    await tilecast.idle();
    expect(broadcasts).toEqual([]);
    expect(pushes.filter((p) => p.push.channels !== undefined)).toEqual([]);
    expect(devicesOf(pushes.filter((p) => p.push.phase === 'update'))).toEqual(DEVICES);
    await tilecast.close();
  });
});

describe('a broadcast job run by the runner', () => {
  /** The store with the account's devices (d0–d2 following production channels), the activity live, and its update's job claimed. */
  async function claimedUpdate(storage: Storage, cursor: string) {
    await storage.upsertAccount({ id: 'acme', tokenHash: 'h', subscription: 'active', activityQuota: 5 });
    for (const id of DEVICES) await storage.upsertDevice({ id, accountId: 'acme', tokenHash: `h-${id}` });
    for (const id of ['d0', 'd1', 'd2']) await storage.setApnsRegistration(id, { environment: 'production', channels: true });
    await storage.putActivity({ accountId: 'acme', slug: 'game', template: 'progress', dismissalDelayS: 0, delivery: 'broadcast' });
    const content = { template: 'progress', progress: { value: 0.1 } };
    await storage.applyActivityUpdate('acme', 'game', { state: 'ONGOING', content, now: 1 });
    const instance = { instanceId: 'a', now: 2, leaseMs: 30_000 };
    const start = (await storage.claimDueDeliveryJobs({ ...instance, limit: 1 }))[0]!;
    await storage.completeDeliveryJob({ ...start, instanceId: 'a' });
    await storage.setActivityChannel('acme', 'game', 'production', 'ch-p');
    const updated = await storage.applyActivityUpdate('acme', 'game', { state: 'ONGOING', content, now: 3 });
    if (!updated.ok || updated.job === null) throw new Error('no job');
    const claimed = (await storage.claimDeliveryJob(updated.job, updated.job.generation, { ...instance, now: 4 }))!;
    if (cursor !== '') await storage.recordDeliveryProgress({ ...claimed, instanceId: 'a' }, { cursor, now: 5, leaseMs: 30_000 });
    return { ...claimed, cursor };
  }

  const runner = (storage: Storage, transport: DeviceTransport, stream: StreamReach) =>
    new JobRunner({
      storage,
      transport,
      sink: { transport, flush: async () => {}, stop() {} },
      // The store's times above: the claim's lease holds.
      clock: createManualClock(10),
      logger: silentLogger,
      instanceId: 'a',
      leaseMs: 30_000,
      hasReceivers: () => true,
      broadcasters: [transport],
      deviceStream: stream,
    });

  const streamOf = (connected: string[]) => {
    const got: string[] = [];
    return { got, stream: { connectedIds: () => connected, pushActivity: async (deviceId: string) => void got.push(deviceId) } };
  };

  it('gives the devices the broadcast reached the push on their open device stream, and no per-device push', async () => {
    const storage = createMemoryStorage();
    const { transport, broadcasts, pushes } = broadcastingTransport(storage);
    const job = await claimedUpdate(storage, '');
    const { got, stream } = streamOf(['d1', 'd4', 'elsewhere']);
    await runner(storage, transport, stream).run(job);
    expect(broadcasts.map((b) => b.environments)).toEqual([['production']]);
    expect(got).toEqual(['d1']);
    expect(devicesOf(pushes)).toEqual(['d3', 'd4', 'd5']);
    expect(await storage.listDeliveryJobs({ limit: 5 })).toEqual([]);
  });

  it('an update that superseded its start before any device is the start: it makes the channels and names them in every start push', async () => {
    const storage = createMemoryStorage();
    const { transport, broadcasts, pushes } = broadcastingTransport(storage);
    await storage.upsertAccount({ id: 'acme', tokenHash: 'h', subscription: 'active', activityQuota: 5 });
    for (const id of DEVICES) await storage.upsertDevice({ id, accountId: 'acme', tokenHash: `h-${id}` });
    for (const id of ['d0', 'd1', 'd2']) await storage.setApnsRegistration(id, { environment: 'production', channels: true });
    await storage.putActivity({ accountId: 'acme', slug: 'game', template: 'progress', dismissalDelayS: 0, delivery: 'broadcast' });
    // The channel of the activity's last run, still stored (its deletion waits for the dismissal).
    await storage.setActivityChannel('acme', 'game', 'production', 'ch-old');
    const content = { template: 'progress', progress: { value: 0.1 } };
    await storage.applyActivityUpdate('acme', 'game', { state: 'ONGOING', content, now: 1 });
    const instance = { instanceId: 'a', now: 2, leaseMs: 30_000 };
    await storage.claimDueDeliveryJobs({ ...instance, limit: 1 }); // the start, claimed and not run
    const updated = await storage.applyActivityUpdate('acme', 'game', { state: 'ONGOING', content, now: 3 });
    if (!updated.ok || updated.job === null) throw new Error('no job');
    expect(updated.job).toMatchObject({ phase: 'update', startAbove: '' });
    const job = (await storage.claimDeliveryJob(updated.job, updated.job.generation, { ...instance, now: 4 }))!;
    await runner(storage, transport, streamOf([]).stream).run(job);
    expect(broadcasts.map((b) => [b.push.phase, b.environments, b.push.channels])).toEqual([
      ['start', ['production'], { production: 'ch-old', sandbox: null }],
    ]);
    expect(devicesOf(pushes)).toEqual(DEVICES);
    for (const { push } of pushes) expect(push).toMatchObject({ phase: 'start', channels: { production: 'ch1', sandbox: null } });
  });

  it('when every device follows a covered channel, no device is pushed to one by one; open streams still get it', async () => {
    const storage = createMemoryStorage();
    const { transport, pushes } = broadcastingTransport(storage);
    const job = await claimedUpdate(storage, '');
    for (const id of ['d3', 'd4', 'd5']) await storage.setApnsRegistration(id, { environment: 'production', channels: true });
    const { got, stream } = streamOf(['d5']);
    await runner(storage, transport, stream).run(job);
    expect(pushes).toEqual([]);
    expect(got).toEqual(['d5']);
  });

  it('a job resumed past its first batch does not broadcast again, and still leaves the reached devices out', async () => {
    const storage = createMemoryStorage();
    const { transport, broadcasts, pushes } = broadcastingTransport(storage);
    const job = await claimedUpdate(storage, 'd0');
    await runner(storage, transport, streamOf([]).stream).run(job);
    expect(broadcasts).toEqual([]);
    expect(devicesOf(pushes)).toEqual(['d3', 'd4', 'd5']);
  });
});

describe('broadcast plan helpers', () => {
  it('leaves out exactly the reached devices it is told to, in one walk', () => {
    const devices = ['a', 'b', 'c', 'd', 'e'];
    expect(withoutReached(devices, [], () => true)).toBe(devices);
    expect(withoutReached(devices, ['b', 'd', 'z'], () => true)).toEqual(['a', 'c', 'e']);
    expect(withoutReached(devices, ['b', 'd'], (id) => id !== 'd')).toEqual(['a', 'c', 'd', 'e']);
    expect(withoutReached(devices, ['0', 'a', 'e'], () => true)).toEqual(['b', 'c', 'd']);
  });

  it('finds ids in a sorted list by bisection', () => {
    const sorted = ['b', 'd', 'f'];
    expect(['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((id) => holds(sorted, id))).toEqual([false, true, false, true, false, true, false]);
    expect(holds([], 'a')).toBe(false);
  });
});
