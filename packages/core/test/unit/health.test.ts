import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import type { CoreRequest, CoreResult, SseSink } from '../../src/adapter.js';
import { createTilecast, silentLogger, type Clock, type Storage } from '../../src/index.js';
import type { DeliveryJobStats } from '../../src/storage/index.js';

const get = (path: string, headers: Record<string, string> = {}): CoreRequest => ({
  method: 'GET',
  path,
  query: new URLSearchParams(),
  headers,
  body: { kind: 'parsed', value: undefined },
});

/** A clock whose timers fire only when told, at `at` (epoch ms). */
function manualClock(): Clock & { fire(): void; at: number } {
  const timers = new Map<number, () => void>();
  let next = 0;
  return {
    at: 0,
    now() {
      return this.at;
    },
    setTimeout: (fn) => {
      timers.set(++next, fn);
      return next;
    },
    clearTimeout: (handle) => void timers.delete(handle as number),
    fire() {
      for (const [handle, fn] of [...timers]) {
        timers.delete(handle);
        fn();
      }
    },
  };
}

/** A sink that records what the stream wrote and whether it was ended. */
function recordingSink(): SseSink & { text: string; ended: boolean } {
  const controller = new AbortController();
  const sink = {
    text: '',
    ended: false,
    bufferedBytes: 0,
    signal: controller.signal,
    write: async (text: string) => {
      sink.text += text;
    },
    end: () => {
      sink.ended = true;
      controller.abort();
    },
  };
  return sink;
}

function runStream(result: CoreResult): { sink: ReturnType<typeof recordingSink>; done: Promise<void> } {
  if (result.kind !== 'sse') throw new Error(`not a stream: ${JSON.stringify(result)}`);
  const sink = recordingSink();
  return { sink, done: result.run(sink) };
}

/** Lets the stream loops run until they wait. */
const settle = async (): Promise<void> => {
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('health: GET /healthz and GET /readyz', () => {
  it('answers 200 {"status":"ok"} on both, without authentication, never cached', async () => {
    const storage = createMemoryStorage();
    let reads = 0;
    const counted: Storage = Object.assign(Object.create(storage) as Storage, {
      getAccount: (id: string) => {
        reads++;
        return storage.getAccount(id);
      },
    });
    const tilecast = createTilecast({ storage: counted, logger: silentLogger, purgeIntervalMs: 0 });
    for (const path of ['/healthz', '/readyz']) {
      expect(await tilecast.health.handle(get(path))).toEqual({ kind: 'json', status: 200, body: { status: 'ok' }, headers: { 'cache-control': 'no-store' } });
    }
    // /readyz asked the store once (a holdable id: a store really asks its server); /healthz never.
    expect(reads).toBe(1);
    expect(await tilecast.health.handle({ ...get('/readyz'), method: 'POST' })).toMatchObject({ status: 405 });
    expect(await tilecast.health.handle(get('/events'))).toMatchObject({ status: 404 });
    await tilecast.close();
  });

  it('/readyz is 503 "storage" when the store fails, and 200 again when it answers', async () => {
    const storage = createMemoryStorage();
    let down = true;
    const flaky: Storage = Object.assign(Object.create(storage) as Storage, {
      getAccount: (id: string) => (down ? Promise.reject(new Error('connection refused')) : storage.getAccount(id)),
    });
    const tilecast = createTilecast({ storage: flaky, logger: silentLogger, purgeIntervalMs: 0 });
    expect(await tilecast.health.handle(get('/readyz'))).toEqual({
      kind: 'json',
      status: 503,
      body: { status: 'unavailable', reason: 'storage' },
      headers: { 'cache-control': 'no-store' },
    });
    expect(await tilecast.health.handle(get('/healthz'))).toMatchObject({ status: 200 });
    down = false;
    expect(await tilecast.health.handle(get('/readyz'))).toMatchObject({ status: 200 });
    await tilecast.close();
  });

  it('/readyz is 503 "storage" when the store does not answer within the deadline; concurrent probes share one store call', async () => {
    const storage = createMemoryStorage();
    const clock = manualClock();
    let calls = 0;
    const frozen: Storage = Object.assign(Object.create(storage) as Storage, {
      getAccount: () => {
        calls++;
        return new Promise(() => {});
      },
    });
    const tilecast = createTilecast({ storage: frozen, clock, logger: silentLogger, purgeIntervalMs: 0, readinessDeadlineMs: 50 });
    const probes = [tilecast.health.handle(get('/readyz')), tilecast.health.handle(get('/readyz'))];
    clock.fire();
    for (const answer of await Promise.all(probes)) expect(answer).toMatchObject({ status: 503, body: { status: 'unavailable', reason: 'storage' } });
    expect(calls).toBe(1);
    await tilecast.close();
  });

  it('/readyz is 503 "draining" once drain() was called, without a store call', async () => {
    const storage = createMemoryStorage();
    let calls = 0;
    const counted: Storage = Object.assign(Object.create(storage) as Storage, {
      getAccount: (id: string) => {
        calls++;
        return storage.getAccount(id);
      },
    });
    const tilecast = createTilecast({ storage: counted, logger: silentLogger, purgeIntervalMs: 0 });
    expect(tilecast.draining).toBe(false);
    expect(tilecast.drain()).toEqual({ streamsEnded: 0 });
    expect(tilecast.draining).toBe(true);
    expect(await tilecast.health.handle(get('/readyz'))).toMatchObject({ status: 503, body: { status: 'unavailable', reason: 'draining' } });
    expect(await tilecast.health.handle(get('/healthz'))).toMatchObject({ status: 200, body: { status: 'ok' } });
    expect(calls).toBe(0);
    await tilecast.close();
  });
});

describe('GET /readyz detail: delivery jobs waiting too long (docs/contract/deployment.md#readyz-detail)', () => {
  const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
  /** The memory store, with `deliveryJobStats` answering `stats()`: the readiness read itself goes to the store. */
  function withStats(stats: () => Promise<DeliveryJobStats>): { storage: Storage; calls: () => number } {
    const storage = createMemoryStorage();
    let calls = 0;
    const wrapped: Storage = Object.assign(Object.create(storage) as Storage, {
      deliveryJobStats: () => {
        calls++;
        return stats();
      },
    });
    return { storage: wrapped, calls: () => calls };
  }
  const start = (storage: Storage, clock: Clock, delivery: { lateAfterMs?: number } = {}) =>
    // pollMs 0: no job poller asks the store for jobs; only /readyz reads the stats.
    createTilecast({ storage, clock, logger: silentLogger, purgeIntervalMs: 0, readinessDeadlineMs: 50, delivery: { pollMs: 0, ...delivery } });

  it('names a pending job older than delivery.lateAfterMs in a detail line, and stays 200', async () => {
    const clock = manualClock();
    clock.at = NOW;
    let oldest: number | null = null;
    const { storage, calls } = withStats(async () => ({ pending: oldest === null ? 0 : 3, oldestCreatedAt: oldest }));
    const tilecast = start(storage, clock, { lateAfterMs: 30_000 });
    const ok = { kind: 'json', status: 200, body: { status: 'ok' }, headers: { 'cache-control': 'no-store' } };
    expect(await tilecast.health.handle(get('/readyz'))).toEqual(ok);
    oldest = NOW - 30_000; // exactly the limit: not over it
    expect(await tilecast.health.handle(get('/readyz'))).toEqual(ok);
    oldest = NOW - 95_400;
    expect(await tilecast.health.handle(get('/readyz'))).toEqual({
      ...ok,
      body: { status: 'ok', detail: ['delivery: the oldest pending job has waited 95.4 s (over 30 s)'] },
    });
    // However long: a backlog is every instance's, so it never takes one out of rotation.
    oldest = NOW - 86_400_000;
    expect(await tilecast.health.handle(get('/readyz'))).toMatchObject({
      status: 200,
      body: { detail: ['delivery: the oldest pending job has waited 86400 s (over 30 s)'] },
    });
    expect(calls()).toBe(4);
    await tilecast.close();
  });

  it('uses 60 s unless told', async () => {
    const clock = manualClock();
    clock.at = NOW;
    const { storage } = withStats(async () => ({ pending: 1, oldestCreatedAt: NOW - 60_000 }));
    const tilecast = start(storage, clock);
    expect(await tilecast.health.handle(get('/readyz'))).toMatchObject({ status: 200, body: { status: 'ok' } });
    clock.at = NOW + 1_000;
    expect(await tilecast.health.handle(get('/readyz'))).toMatchObject({
      status: 200,
      body: { status: 'ok', detail: ['delivery: the oldest pending job has waited 61 s (over 60 s)'] },
    });
    await tilecast.close();
  });

  it('says so when the jobs cannot be read, or not within the deadline, and stays 200 while the store answers its read', async () => {
    const clock = manualClock();
    const failing = withStats(() => Promise.reject(new Error('relation "delivery_jobs" does not exist')));
    const failed = start(failing.storage, clock);
    const answer = await failed.health.handle(get('/readyz'));
    expect(answer).toMatchObject({ status: 200, body: { status: 'ok', detail: ['delivery: the pending jobs could not be read'] } });
    // No error text on this unauthenticated route: it may name tables, hosts or accounts.
    expect(JSON.stringify(answer)).not.toContain('delivery_jobs');
    await failed.close();

    const frozen = withStats(() => new Promise(() => {}));
    const late = start(frozen.storage, clock);
    const probe = late.health.handle(get('/readyz'));
    await settle();
    clock.fire();
    expect(await probe).toMatchObject({ status: 200, body: { status: 'ok', detail: ['delivery: the pending jobs were not read within 50 ms'] } });
    await late.close();
  });

  it('adds nothing to a 503, and does not wait for the job stats to give one: the store failed, or the instance drains', async () => {
    const clock = manualClock();
    clock.at = NOW;
    // Job stats that never answer, and a clock whose deadline never fires: the 503 of a failed read comes at once all the same.
    const { storage } = withStats(() => new Promise(() => {}));
    const down: Storage = Object.assign(Object.create(storage) as Storage, { getAccount: () => Promise.reject(new Error('connection refused')) });
    const tilecast = start(down, clock);
    const unready = (reason: string) => ({ kind: 'json', status: 503, body: { status: 'unavailable', reason }, headers: { 'cache-control': 'no-store' } });
    expect(await tilecast.health.handle(get('/readyz'))).toEqual(unready('storage'));
    tilecast.drain();
    expect(await tilecast.health.handle(get('/readyz'))).toEqual(unready('draining'));
    await tilecast.close();
  });
});

describe('drain(): open streams end with a last retry line', () => {
  it('ends open event and device streams with `retry: 1000`, and answers later stream requests the same way at once', async () => {
    const storage = createMemoryStorage();
    const tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0 });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    const device = await tilecast.management.registerDevice({ id: 'phone', account: 'acme' });
    const events = runStream(await tilecast.handle(get('/events', { authorization: `Token ${token}` })));
    const phone = runStream(await tilecast.device.handle(get('/stream', { authorization: `Device ${device.token}` })));
    await settle();
    expect(events.sink.ended).toBe(false);
    expect(phone.sink.ended).toBe(false);
    const opened = { events: events.sink.text, phone: phone.sink.text };

    expect(tilecast.drain()).toEqual({ streamsEnded: 2 });
    await Promise.all([events.done, phone.done]);
    for (const [stream, before] of [
      [events, opened.events],
      [phone, opened.phone],
    ] as const) {
      expect(stream.sink.ended).toBe(true);
      expect(stream.sink.text).toBe(`${before}retry: 1000\n\n`);
    }
    // The event stream gave its slot back.
    expect(storage.stats().eventStreamSlots).toBe(0);

    const late = runStream(await tilecast.handle(get('/events', { authorization: `Token ${token}` })));
    await late.done;
    expect(late.sink).toMatchObject({ text: 'retry: 1000\n\n', ended: true });
    const latePhone = runStream(await tilecast.device.handle(get('/stream', { authorization: `Device ${device.token}` })));
    await latePhone.done;
    expect(latePhone.sink).toMatchObject({ text: 'retry: 1000\n\n', ended: true });
    // Requests that are not streams are still served.
    expect(await tilecast.handle(get('/openapi.json'))).toMatchObject({ status: 200 });
    await tilecast.close();
  });
});
