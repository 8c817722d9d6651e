import { randomUUID } from 'node:crypto';
import type { Storage } from '@tilecast/core/storage';
import { beforeEach, expect, it } from 'vitest';
import { type GetHandles, admitKey, newEvent, uid } from '../harness.js';

/**
 * Purge tests live far below every other test's times (`T0`), so on a shared database
 * they only ever see, and purge, their own rows.
 */
const P0 = 10_000;
const HORIZON = 1_000_000;

async function drain(storage: Storage): Promise<void> {
  for (let i = 0; i < 1_000 && (await storage.purgeExpired({ now: HORIZON, batch: 10_000 })) > 0; i++);
}

export function purgeTests(get: GetHandles): void {
  beforeEach(async () => {
    await drain(get().storage);
  });

  it('removes expired events, press keys, event-stream slots and delivery claims, returning how many', async () => {
    const { storage } = get();
    const account = uid('acct');
    await storage.appendEvent(account, newEvent(P0 + 100));
    await storage.appendEvent(account, newEvent(P0 + 100));
    const kept = await storage.appendEvent(account, newEvent(P0 + 10_000));
    const [shortPress, longPress] = [uid('press'), uid('press')];
    await admitKey(storage, shortPress, randomUUID(), P0, P0 + 100);
    const longId = randomUUID();
    await admitKey(storage, longPress, longId, P0, P0 + 10_000);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 2, now: P0, ttlMs: 100 })).toBe(true);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 2, now: P0, ttlMs: 10_000 })).toBe(true);
    const [shortEvent, longEvent] = [randomUUID(), randomUUID()];
    expect(await storage.claimWebhookDelivery(shortEvent, '*', { instanceId: 'a', now: P0, expiresAt: P0 + 100 })).toBe(true);
    expect(await storage.claimWebhookDelivery(longEvent, '*', { instanceId: 'a', now: P0, expiresAt: P0 + 10_000 })).toBe(true);

    const heldBefore = await storage.countEvents?.();
    expect(await storage.purgeExpired({ now: P0 + 100, batch: 100 })).toBe(2 + 1 + 1 + 1);
    expect(await storage.purgeExpired({ now: P0 + 100, batch: 100 })).toBe(0);
    // The event-log size falls by the two expired events (when the store counts them).
    if (heldBefore !== undefined) expect(await storage.countEvents?.()).toBe(heldBefore - 2);

    // Read back with an earlier `now`, at which the purged rows would still be valid:
    // only a real removal explains what follows.
    expect(await storage.readEvents(account, { after: 0, now: P0, limit: 10 })).toEqual([kept]);
    expect(await storage.lastEventPosition(account)).toBe(3);
    expect((await storage.appendEvent(account, newEvent(P0 + 10_000))).position).toBe(4);
    const again = randomUUID();
    expect(await admitKey(storage, shortPress, again, P0, P0 + 100)).toEqual({ created: true, eventId: again });
    expect(await admitKey(storage, longPress, randomUUID(), P0, P0 + 100)).toEqual({ created: false, eventId: longId });
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 2, now: P0, ttlMs: 100 })).toBe(true);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 2, now: P0, ttlMs: 100 })).toBe(false);
    expect(await storage.claimWebhookDelivery(shortEvent, '*', { instanceId: 'b', now: P0, expiresAt: P0 + 100 })).toBe(true);
    expect(await storage.claimWebhookDelivery(longEvent, '*', { instanceId: 'b', now: P0, expiresAt: P0 + 100 })).toBe(false);
  });

  it('keeps whatever has not expired at now (expiresAt > now)', async () => {
    const { storage } = get();
    const account = uid('acct');
    const event = await storage.appendEvent(account, newEvent(P0 + 100));
    const press = uid('press');
    const pressId = randomUUID();
    await admitKey(storage, press, pressId, P0, P0 + 100);
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 1, now: P0, ttlMs: 100 })).toBe(true);
    const claimed = randomUUID();
    await storage.claimWebhookDelivery(claimed, '*', { instanceId: 'a', now: P0, expiresAt: P0 + 100 });

    expect(await storage.purgeExpired({ now: P0 + 99, batch: 100 })).toBe(0);

    expect(await storage.readEvents(account, { after: 0, now: P0 + 99, limit: 10 })).toEqual([event]);
    expect(await admitKey(storage, press, randomUUID(), P0 + 99, P0 + 200)).toEqual({ created: false, eventId: pressId });
    expect(await storage.acquireEventStreamSlot(account, uid('slot'), { max: 1, now: P0 + 99, ttlMs: 100 })).toBe(false);
    expect(await storage.claimWebhookDelivery(claimed, '*', { instanceId: 'b', now: P0 + 99, expiresAt: P0 + 100 })).toBe(false);
  });

  it('removes expired device-stream slots, counted, and keeps those that have not expired', async () => {
    const { storage } = get();
    const device = uid('dev');
    expect(await storage.acquireDeviceStreamSlot(device, uid('slot'), { max: 2, now: P0, ttlMs: 100 })).toBe(true);
    expect(await storage.acquireDeviceStreamSlot(device, uid('slot'), { max: 2, now: P0, ttlMs: 10_000 })).toBe(true);
    expect(await storage.purgeExpired({ now: P0 + 99, batch: 100 })).toBe(0);
    expect(await storage.purgeExpired({ now: P0 + 100, batch: 100 })).toBe(1);
    expect(await storage.purgeExpired({ now: P0 + 100, batch: 100 })).toBe(0);
    // Read back at an earlier `now`, at which the purged slot would still hold: one slot is free.
    expect(await storage.acquireDeviceStreamSlot(device, uid('slot'), { max: 2, now: P0, ttlMs: 100 })).toBe(true);
    expect(await storage.acquireDeviceStreamSlot(device, uid('slot'), { max: 2, now: P0, ttlMs: 100 })).toBe(false);
  });

  it('removes at most batch rows of each kind per call', async () => {
    const { storage } = get();
    const accounts = [uid('acct'), uid('acct')];
    for (let i = 0; i < 5; i++) await storage.appendEvent(accounts[i % 2]!, newEvent(P0 + 100));
    for (let i = 0; i < 5; i++) await admitKey(storage, uid('press'), randomUUID(), P0, P0 + 100);
    for (let i = 0; i < 3; i++) expect(await storage.acquireEventStreamSlot(accounts[0]!, uid('slot'), { max: 10, now: P0, ttlMs: 100 })).toBe(true);

    expect(await storage.purgeExpired({ now: P0 + 100, batch: 2 })).toBe(2 + 2 + 2);
    expect(await storage.purgeExpired({ now: P0 + 100, batch: 2 })).toBe(2 + 2 + 1);
    expect(await storage.purgeExpired({ now: P0 + 100, batch: 2 })).toBe(1 + 1);
    expect(await storage.purgeExpired({ now: P0 + 100, batch: 2 })).toBe(0);
    expect(await storage.readEvents(accounts[0]!, { after: 0, now: P0, limit: 10 })).toEqual([]);
    expect(await storage.readEvents(accounts[1]!, { after: 0, now: P0, limit: 10 })).toEqual([]);
  });
}
