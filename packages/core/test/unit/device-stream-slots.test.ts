import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import type { CoreRequest } from '../../src/adapter.js';
import { createTilecast, MAX_DEVICE_STREAMS, silentLogger } from '../../src/index.js';
import { STREAM_SLOT_RENEW_MS, STREAM_SLOT_TTL_MS } from '../../src/sse/stream-slots.js';
import { createManualClock } from '../../../../test/support/manual-clock.js';

const request = (token: string, extra: Partial<CoreRequest> = {}): CoreRequest => ({
  method: 'GET',
  path: '/stream',
  query: new URLSearchParams(),
  headers: { authorization: `Device ${token}` },
  body: { kind: 'parsed', value: undefined },
  ...extra,
});

/** A sink whose client the test closes; its stream then ends. */
function closableSink() {
  const closers: (() => void)[] = [];
  const controller = new AbortController();
  return {
    sink: {
      bufferedBytes: 0,
      signal: controller.signal,
      write: async () => {},
      end: () => controller.abort(),
      onClose: (fn: () => void) => void closers.push(fn),
    },
    close: () => {
      for (const fn of closers) fn();
    },
  };
}

async function setup() {
  const storage = createMemoryStorage();
  const clock = createManualClock();
  const tilecast = createTilecast({ storage, clock, logger: silentLogger, purgeIntervalMs: 0 });
  await tilecast.management.createAccount({ id: 'acme' });
  const { token } = await tilecast.management.registerDevice({ id: 'phone', account: 'acme' });
  return { storage, clock, tilecast, token };
}

describe('device stream slots', () => {
  it(`${MAX_DEVICE_STREAMS} per device; a client that leaves before its stream runs frees the slot; after it runs, the stream's end releases it, once`, async () => {
    const { storage, tilecast, token } = await setup();
    const closers: (() => void)[][] = [];
    const closable = (): CoreRequest => {
      const own: (() => void)[] = [];
      closers.push(own);
      return request(token, { onClose: (fn) => void own.push(fn) });
    };
    const results = [];
    for (let i = 0; i < MAX_DEVICE_STREAMS; i++) results.push(await tilecast.device.handle(closable()));
    expect(results.map((result) => result.kind)).toEqual(['sse', 'sse', 'sse', 'sse']);
    expect(await tilecast.device.handle(request(token))).toMatchObject({ status: 429, body: { detail: 'Too many device streams' } });
    for (const fn of closers[0]!) fn(); // never ran: the close alone releases it
    await Promise.resolve();
    expect(storage.stats().deviceStreamSlots).toBe(3);

    const second = results[1]!;
    if (second.kind !== 'sse') throw new Error('not a stream');
    const client = closableSink();
    const running = second.run(client.sink);
    for (const fn of closers[1]!) fn(); // the request's listener no longer releases anything…
    await Promise.resolve();
    expect(storage.stats().deviceStreamSlots).toBe(3);
    client.close(); // …the stream's end does
    await running;
    expect(storage.stats().deviceStreamSlots).toBe(2);
    await tilecast.close();
  });

  it('a running stream keeps its slot past the slot TTL; one whose slot cannot be renewed ends and frees it', async () => {
    const { storage, clock, tilecast, token } = await setup();
    const taken: string[] = [];
    const acquire = storage.acquireDeviceStreamSlot;
    storage.acquireDeviceStreamSlot = (deviceId, slotId, terms) => {
      taken.push(slotId);
      return acquire(deviceId, slotId, terms);
    };
    const result = await tilecast.device.handle(request(token));
    if (result.kind !== 'sse') throw new Error('not a stream');
    const running = result.run(closableSink().sink);
    for (let i = 0; i * STREAM_SLOT_RENEW_MS <= 2 * STREAM_SLOT_TTL_MS; i++) {
      clock.advance(STREAM_SLOT_RENEW_MS);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Still held (not merely not purged): a one-slot probe at this time is refused.
    expect(await storage.acquireDeviceStreamSlot('phone', 'probe', { max: 1, now: clock.now(), ttlMs: 1 })).toBe(false);
    // Its lease is gone (say an operator's purge after this instance stalled): the next renewal fails.
    await storage.releaseDeviceStreamSlot('phone', taken[0]!);
    clock.advance(STREAM_SLOT_RENEW_MS);
    await running;
    expect(storage.stats().deviceStreamSlots).toBe(0);
    await tilecast.close();
  });
});
