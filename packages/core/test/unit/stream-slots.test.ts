import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createEventStreamSlots, EVENT_STREAM_SLOT_RENEW_MS, EVENT_STREAM_SLOT_TTL_MS, type HeldSlot } from '../../src/events/stream-slots.js';
import { silentLogger } from '../../src/logger.js';
import { createManualClock } from '../../../../test/support/manual-clock.js';

const slot = (accountId: string, slotId: string, slotLost = () => {}): HeldSlot => ({ accountId, slotId, slotLost });

describe('event-stream slot renewal', () => {
  it('renews every held slot every 20 s with one timer, so a live stream keeps its slot past the slot TTL', async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const slots = createEventStreamSlots(storage, clock, silentLogger);
    for (const id of ['a', 'b'])
      expect(await storage.acquireEventStreamSlot('acme', id, { max: 4, now: clock.now(), ttlMs: EVENT_STREAM_SLOT_TTL_MS })).toBe(true);
    slots.keep(slot('acme', 'a'));
    slots.keep(slot('acme', 'b'));
    expect(clock.pendingTimers()).toBe(1);
    for (let i = 0; i < 6; i++) {
      clock.advance(EVENT_STREAM_SLOT_RENEW_MS);
      await new Promise((resolve) => setImmediate(resolve));
    }
    // Two minutes on: both slots are still held, so only two more slots are free.
    expect(await storage.acquireEventStreamSlot('acme', 'c', { max: 4, now: clock.now(), ttlMs: EVENT_STREAM_SLOT_TTL_MS })).toBe(true);
    expect(await storage.acquireEventStreamSlot('acme', 'd', { max: 4, now: clock.now(), ttlMs: EVENT_STREAM_SLOT_TTL_MS })).toBe(true);
    expect(await storage.acquireEventStreamSlot('acme', 'e', { max: 4, now: clock.now(), ttlMs: EVENT_STREAM_SLOT_TTL_MS })).toBe(false);
    slots.close();
  });

  it('reports a slot it can no longer renew as lost, and stops renewing a released one', async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const slots = createEventStreamSlots(storage, clock, silentLogger);
    await storage.acquireEventStreamSlot('acme', 'a', { max: 4, now: clock.now(), ttlMs: EVENT_STREAM_SLOT_TTL_MS });
    let lost = 0;
    slots.keep(slot('acme', 'a', () => lost++));
    const gone = slot('acme', 'gone', () => lost++);
    slots.keep(gone);
    slots.drop(gone);
    await storage.releaseEventStreamSlot('acme', 'a'); // e.g. purged after this instance stalled
    clock.advance(EVENT_STREAM_SLOT_RENEW_MS);
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost).toBe(1);
    expect(clock.pendingTimers()).toBe(0);
  });
});
