import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { DEVICE_STREAM_SLOTS } from '../../src/devices/device-stream.js';
import { EVENT_STREAM_SLOTS } from '../../src/events/event-stream.js';
import { silentLogger } from '../../src/logger.js';
import { createStreamSlots, STREAM_SLOT_RENEW_MS, STREAM_SLOT_TTL_MS, type HeldSlot } from '../../src/sse/stream-slots.js';
import { createManualClock } from '../../../../test/support/manual-clock.js';

const slot = (accountId: string, slotId: string, slotLost = () => {}): HeldSlot => ({ slotKind: EVENT_STREAM_SLOTS, slotOwnerId: accountId, slotId, slotLost });

describe('stream slot renewal', () => {
  it('renews every held slot every 20 s with one timer, so a live stream keeps its slot past the slot TTL', async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const slots = createStreamSlots(storage, clock, silentLogger);
    for (const id of ['a', 'b']) expect(await storage.acquireEventStreamSlot('acme', id, { max: 4, now: clock.now(), ttlMs: STREAM_SLOT_TTL_MS })).toBe(true);
    slots.keep(slot('acme', 'a'));
    slots.keep(slot('acme', 'b'));
    expect(clock.pendingTimers()).toBe(1);
    for (let i = 0; i < 6; i++) {
      clock.advance(STREAM_SLOT_RENEW_MS);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Two minutes on: both slots are still held, so only two more slots are free.
    expect(await storage.acquireEventStreamSlot('acme', 'c', { max: 4, now: clock.now(), ttlMs: STREAM_SLOT_TTL_MS })).toBe(true);
    expect(await storage.acquireEventStreamSlot('acme', 'd', { max: 4, now: clock.now(), ttlMs: STREAM_SLOT_TTL_MS })).toBe(true);
    expect(await storage.acquireEventStreamSlot('acme', 'e', { max: 4, now: clock.now(), ttlMs: STREAM_SLOT_TTL_MS })).toBe(false);
    slots.close();
  });

  it('reports a slot it can no longer renew as lost, and stops renewing a released one', async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const slots = createStreamSlots(storage, clock, silentLogger);
    await storage.acquireEventStreamSlot('acme', 'a', { max: 4, now: clock.now(), ttlMs: STREAM_SLOT_TTL_MS });
    let lost = 0;
    slots.keep(slot('acme', 'a', () => lost++));
    const gone = slot('acme', 'gone', () => lost++);
    slots.keep(gone);
    slots.drop(gone);
    await storage.releaseEventStreamSlot('acme', 'a'); // e.g. purged after this instance stalled
    clock.advance(STREAM_SLOT_RENEW_MS);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });

  it("renews a device's stream slots with the same timer, in the device's own leases", async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const slots = createStreamSlots(storage, clock, silentLogger);
    const terms = () => ({ max: 1, now: clock.now(), ttlMs: STREAM_SLOT_TTL_MS });
    expect(await storage.acquireDeviceStreamSlot('phone', 'a', terms())).toBe(true);
    expect(await storage.acquireEventStreamSlot('phone', 'a', terms())).toBe(true);
    slots.keep({ slotKind: DEVICE_STREAM_SLOTS, slotOwnerId: 'phone', slotId: 'a', slotLost: () => expect.fail('the device slot was renewed') });
    slots.keep(slot('phone', 'a'));
    expect(clock.pendingTimers()).toBe(1);
    for (let i = 0; i < 6; i++) {
      clock.advance(STREAM_SLOT_RENEW_MS);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Two minutes on, both kinds are still held (the one slot of each is taken).
    expect(await storage.acquireDeviceStreamSlot('phone', 'b', terms())).toBe(false);
    expect(await storage.acquireEventStreamSlot('phone', 'b', terms())).toBe(false);
    slots.close();
  });
});
