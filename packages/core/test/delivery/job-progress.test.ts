import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../test/support/manual-clock.js';
import type { CoreRequest } from '../../src/adapter.js';
import { FANOUT_WINDOW } from '../../src/delivery/paced-send.js';
import {
  createRecordingTransport,
  createTilecast,
  type DeviceTransport,
  type PushResult,
  silentLogger,
  type Storage,
  StorageUnavailableError,
} from '../../src/index.js';

const DEVICES = 1_000;
const deviceIds = Array.from({ length: DEVICES }, (_, i) => `d${String(i).padStart(4, '0')}`);
const LEASE_MS = 30_000;

const startActivity = (token: string): CoreRequest => ({
  method: 'PATCH',
  path: '/activity/game',
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
  body: { kind: 'parsed', value: { state: 'ONGOING', content: { template: 'progress', progress: { value: 0.5 } } } },
});

async function seeded(instance: ReturnType<typeof createTilecast>): Promise<string> {
  const { token } = await instance.management.createAccount({ id: 'acme' });
  for (const id of deviceIds) await instance.management.registerDevice({ id, account: 'acme' });
  await instance.management.createActivity({ account: 'acme', slug: 'game', template: 'progress' });
  return token;
}

const instance = (storage: Storage, transport: DeviceTransport, clock: ReturnType<typeof createManualClock>) =>
  createTilecast({ storage, transport, clock, logger: silentLogger, purgeIntervalMs: 0, delivery: { instanceId: 'a', pollMs: 2_000, leaseMs: LEASE_MS } });

/** Lets promise chains and I/O turns run until `done` holds (bounded). */
async function turnsUntil(done: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await done()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`still waiting for ${what}`);
}

/** `storage` with one method replaced by `replacement`, which gets the store's own method to call. */
function withMethod<K extends keyof Storage>(storage: Storage, name: K, replacement: (original: Storage[K]) => Storage[K]): Storage {
  const original = (storage[name] as (...args: unknown[]) => unknown).bind(storage) as Storage[K];
  const replaced = replacement(original);
  return new Proxy(storage, { get: (target, key, receiver) => (key === name ? replaced : Reflect.get(target, key, receiver)) });
}

const job = async (storage: Storage) => (await storage.listDeliveryJobs({ limit: 1 }))[0];

describe('delivery job progress (docs/contract/durable-delivery.md)', () => {
  it('a push the store could not serve is no dead letter, and its batch is sent again when the job resumes (#durable-store-outage)', async () => {
    const storage = createMemoryStorage();
    const clock = createManualClock();
    const delivered: string[] = [];
    const tried = new Set<string>();
    // The host transport reads each device's tokens from the store: for ten devices of the
    // first batch the store does not answer, once.
    const flaky: DeviceTransport = {
      name: 'apns',
      pushActivity: async (deviceId): Promise<PushResult> => {
        const index = deviceIds.indexOf(deviceId);
        if (index >= 10 && index < 20 && !tried.has(deviceId)) {
          tried.add(deviceId);
          throw new StorageUnavailableError('PostgreSQL unavailable: connect ECONNREFUSED');
        }
        delivered.push(deviceId);
        return 'delivered';
      },
      pushWidget: async () => 'delivered',
    };
    const a = instance(storage, flaky, clock);
    const token = await seeded(a);
    expect(await a.handle(startActivity(token))).toMatchObject({ status: 200 });
    await a.idle();
    // The first batch was not recorded, and nothing became a dead letter.
    expect(await job(storage)).toMatchObject({ cursor: '', leasedBy: 'a' });
    expect(await storage.listDeadLetters({ limit: 10 })).toEqual([]);
    expect(delivered).toHaveLength(490);

    // Once the lease lapsed, the job is resumed from the start: the ten get it, none is skipped.
    // The instance polls every 2 s; each poll reschedules itself once the store answered.
    for (let waited = 0; waited <= LEASE_MS; waited += 2_000) {
      clock.advance(2_000);
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
    }
    await turnsUntil(async () => (await storage.deliveryJobStats()).pending === 0, 'the resumed job');
    await a.idle();
    expect(new Set(delivered)).toEqual(new Set(deviceIds));
    expect(delivered).toHaveLength(490 + DEVICES);
    expect(await storage.listDeadLetters({ limit: 10 })).toEqual([]);
    await a.close();
  });

  it('records every batch but the last, which the completion records (#durable-job-resume)', async () => {
    const memory = createMemoryStorage();
    const clock = createManualClock();
    const recorded: string[] = [];
    const storage = withMethod(memory, 'recordDeliveryProgress', (record) => (ref, progress) => {
      recorded.push(progress.cursor);
      return record(ref, progress);
    });
    const transport = createRecordingTransport();
    const a = instance(storage, transport, clock);
    const token = await seeded(a);
    expect(await a.handle(startActivity(token))).toMatchObject({ status: 200 });
    await a.idle();
    // 1,000 devices in batches of 500: the first batch is recorded, the second ends the job.
    expect(recorded).toEqual([deviceIds[499]]);
    expect(transport.pushes).toHaveLength(DEVICES);
    expect(await storage.deliveryJobStats()).toEqual({ pending: 0, oldestCreatedAt: null });
    await a.close();
  });

  it('the instance that wrote an update runs its job from the record the write returned, without reading it again', async () => {
    const memory = createMemoryStorage();
    const clock = createManualClock();
    let reads = 0;
    const storage = withMethod(memory, 'getActivity', (read) => (accountId, slug) => {
      reads += 1;
      return read(accountId, slug);
    });
    const transport = createRecordingTransport();
    const a = instance(storage, transport, clock);
    const token = await seeded(a);
    const before = reads;
    expect(await a.handle(startActivity(token))).toMatchObject({ status: 200 });
    await a.idle();
    expect(reads - before).toBe(0);
    expect(transport.pushes).toHaveLength(DEVICES);
    expect(transport.pushes[0]?.push.content).toEqual((await memory.getActivity('acme', 'game'))?.content);
    await a.close();
  });

  it('a lease renewal that read the progress before a batch was recorded does not put it back', async () => {
    const memory = createMemoryStorage();
    const clock = createManualClock();
    // Renewals at the start's progress ('') wait here until the test lets them through.
    const heldRenewals: Array<() => void> = [];
    const storage = withMethod(memory, 'recordDeliveryProgress', (record) => async (ref, progress) => {
      if (progress.cursor === '') await new Promise<void>((resolve) => heldRenewals.push(resolve));
      return record(ref, progress);
    });
    // The first batch's pushes settle when the test opens the gate; the rest never do (the instance dies).
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => (open = resolve));
    let handed = 0;
    const gated: DeviceTransport = {
      pushActivity: () => (++handed <= 500 ? gate.then((): PushResult => 'delivered') : new Promise<PushResult>(() => {})),
      pushWidget: async () => 'delivered',
    };
    const a = instance(storage, gated, clock);
    const token = await seeded(a);
    await a.handle(startActivity(token));
    await turnsUntil(() => handed === FANOUT_WINDOW, 'the first pushes handed over');
    // A renewal reads the progress (none yet) while the first batch is in flight...
    clock.advance(LEASE_MS / 3);
    await turnsUntil(() => heldRenewals.length === 1, 'the renewal');
    // ...the batch ends and its progress is written, then the renewal lands.
    open();
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    heldRenewals[0]!();
    await turnsUntil(() => handed > 500, 'the second batch');
    await turnsUntil(async () => (await job(storage))?.cursor === deviceIds[499], 'the first batch recorded');
    for (let i = 0; i < 50; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(await job(storage)).toMatchObject({ cursor: deviceIds[499], leasedBy: 'a' });
    await a.handBackDeliveries();
  });
});
