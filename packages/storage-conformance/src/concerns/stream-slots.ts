import type { SlotAcquisition, SlotRenewal, Storage } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, count, either, newAccount, newDevice, randomHash, uid } from '../harness.js';

const MAX = 4;
const TTL = 90_000;

/** One kind of stream slots: who owns them, and the store's three calls for them. */
interface SlotKind {
  /** The prefix of an owner id (any string names an owner: slots need no record). */
  owner: string;
  renewName: string;
  acquire(storage: Storage, ownerId: string, slotId: string, terms: SlotAcquisition): Promise<boolean>;
  renew(storage: Storage, ownerId: string, slotId: string, terms: SlotRenewal): Promise<boolean>;
  release(storage: Storage, ownerId: string, slotId: string): Promise<void>;
}

const eventStreams: SlotKind = {
  owner: 'acct',
  renewName: 'renewEventStreamSlot',
  acquire: (storage, ownerId, slotId, terms) => storage.acquireEventStreamSlot(ownerId, slotId, terms),
  renew: (storage, ownerId, slotId, terms) => storage.renewEventStreamSlot(ownerId, slotId, terms),
  release: (storage, ownerId, slotId) => storage.releaseEventStreamSlot(ownerId, slotId),
};

const deviceStreams: SlotKind = {
  owner: 'dev',
  renewName: 'renewDeviceStreamSlot',
  acquire: (storage, ownerId, slotId, terms) => storage.acquireDeviceStreamSlot(ownerId, slotId, terms),
  renew: (storage, ownerId, slotId, terms) => storage.renewDeviceStreamSlot(ownerId, slotId, terms),
  release: (storage, ownerId, slotId) => storage.releaseDeviceStreamSlot(ownerId, slotId),
};

/** The event-stream slots of `GET /events`, per account. */
export function eventStreamSlotTests(get: GetHandles): void {
  slotLeaseTests(get, eventStreams);
}

/** The device-stream slots of `GET /device/stream`, per device: the same leases, and their life with the device. */
export function deviceStreamSlotTests(get: GetHandles): void {
  slotLeaseTests(get, deviceStreams);
  deviceSlotLifeTests(get);
}

/** What every kind of stream slot does: a cap, release, expiry, renewal, and the cap under a race of two instances. */
function slotLeaseTests(get: GetHandles, kind: SlotKind): void {
  const owner = () => uid(kind.owner);
  const acquire = (storage: Storage, ownerId: string, slotId: string, terms: SlotAcquisition) => kind.acquire(storage, ownerId, slotId, terms);
  const fill = async (storage: Storage, ownerId: string, now: number): Promise<void> => {
    for (let i = 0; i < MAX; i++) expect(await acquire(storage, ownerId, uid('slot'), { max: MAX, now, ttlMs: TTL })).toBe(true);
  };

  it(`${MAX} slots are granted, the ${MAX + 1}th is refused; other ${kind.owner === 'acct' ? 'accounts' : 'devices'} are unaffected`, async () => {
    const { storage } = get();
    const id = owner();
    await fill(storage, id, T0);
    expect(await acquire(storage, id, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
    expect(await acquire(storage, owner(), uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
  });

  it('releasing a slot frees it; releasing an unknown slot is harmless', async () => {
    const { storage } = get();
    const id = owner();
    const slots = Array.from({ length: MAX }, () => uid('slot'));
    for (const slot of slots) expect(await acquire(storage, id, slot, { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    await kind.release(storage, id, uid('slot'));
    await kind.release(storage, owner(), slots[0]!);
    expect(await acquire(storage, id, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
    await kind.release(storage, id, slots[0]!);
    expect(await acquire(storage, id, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(true);
    expect(await acquire(storage, id, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })).toBe(false);
  });

  it('an expired slot is free again without a release (valid while now < acquired + ttl)', async () => {
    const { storage } = get();
    const id = owner();
    await fill(storage, id, T0);
    expect(await acquire(storage, id, uid('slot'), { max: MAX, now: T0 + TTL - 1, ttlMs: TTL })).toBe(false);
    expect(await acquire(storage, id, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(true);
    // All four old slots expired together: three more fit, then the owner is full again.
    for (let i = 0; i < MAX - 1; i++) expect(await acquire(storage, id, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(true);
    expect(await acquire(storage, id, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(false);
  });

  it(`${kind.renewName} extends a held slot to now + ttl`, async () => {
    const { storage } = get();
    const id = owner();
    const slot = uid('slot');
    expect(await acquire(storage, id, slot, { max: 1, now: T0, ttlMs: 1_000 })).toBe(true);
    expect(await kind.renew(storage, id, slot, { now: T0 + 900, ttlMs: 1_000 })).toBe(true);
    expect(await acquire(storage, id, uid('slot'), { max: 1, now: T0 + 1_500, ttlMs: 1_000 })).toBe(false);
    expect(await acquire(storage, id, uid('slot'), { max: 1, now: T0 + 1_899, ttlMs: 1_000 })).toBe(false);
    expect(await acquire(storage, id, uid('slot'), { max: 1, now: T0 + 1_900, ttlMs: 1_000 })).toBe(true);
  });

  it(`${kind.renewName} is false for an expired, released or unknown slot, and brings none back`, async () => {
    const { storage } = get();
    const id = owner();
    const expired = uid('slot');
    expect(await acquire(storage, id, expired, { max: 1, now: T0, ttlMs: 1_000 })).toBe(true);
    expect(await kind.renew(storage, id, expired, { now: T0 + 1_000, ttlMs: 1_000 })).toBe(false);
    const next = uid('slot');
    expect(await acquire(storage, id, next, { max: 1, now: T0 + 1_000, ttlMs: 1_000 })).toBe(true);
    expect(await kind.renew(storage, id, expired, { now: T0 + 1_100, ttlMs: 1_000 })).toBe(false);
    await kind.release(storage, id, next);
    expect(await kind.renew(storage, id, next, { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    expect(await kind.renew(storage, id, uid('slot'), { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    expect(await kind.renew(storage, owner(), next, { now: T0 + 1_200, ttlMs: 1_000 })).toBe(false);
    // Nothing was resurrected: the one slot is free.
    expect(await acquire(storage, id, uid('slot'), { max: 1, now: T0 + 1_300, ttlMs: 1_000 })).toBe(true);
  });

  it(`concurrent acquires from two handles never exceed ${MAX}`, async () => {
    const handles = get();
    const id = owner();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => acquire(either(handles, i), id, uid('slot'), { max: MAX, now: T0, ttlMs: TTL })));
    expect(count(results, (r) => r)).toBe(MAX);
  });

  it('concurrent acquires after a crash: the expired slots are replaced, still never more than max', async () => {
    const handles = get();
    const id = owner();
    await fill(handles.storage, id, T0);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => acquire(either(handles, i), id, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })),
    );
    expect(count(results, (r) => r)).toBe(MAX);
    expect(await acquire(handles.peer, id, uid('slot'), { max: MAX, now: T0 + TTL, ttlMs: TTL })).toBe(false);
  });
}

/** A device's slots are its own (not an account's), and live only as long as the device and its credential. */
function deviceSlotLifeTests(get: GetHandles): void {
  const terms = { max: MAX, now: T0, ttlMs: TTL };
  const fill = async (storage: Storage, deviceId: string): Promise<void> => {
    for (let i = 0; i < MAX; i++) expect(await storage.acquireDeviceStreamSlot(deviceId, uid('slot'), terms)).toBe(true);
  };
  const full = async (storage: Storage, deviceId: string): Promise<boolean> => !(await storage.acquireDeviceStreamSlot(deviceId, uid('slot'), terms));

  it("a device's slots and an account's event-stream slots are apart, even under an equal id", async () => {
    const { storage } = get();
    const id = uid('same');
    await fill(storage, id);
    expect(await storage.acquireEventStreamSlot(id, uid('slot'), terms)).toBe(true);
    const other = uid('same');
    for (let i = 0; i < MAX; i++) expect(await storage.acquireEventStreamSlot(other, uid('slot'), terms)).toBe(true);
    expect(await storage.acquireDeviceStreamSlot(other, uid('slot'), terms)).toBe(true);
  });

  it('deleteDevice and deleteAccount free the slots of the devices they remove', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const [removed, ofAccount] = [await newDevice(storage, account.id), await newDevice(storage, account.id)];
    const bystander = await newDevice(storage, (await newAccount(storage)).id);
    for (const device of [removed, ofAccount, bystander]) await fill(storage, device.id);
    await storage.deleteDevice(removed.id);
    await newDevice(storage, account.id, removed.id); // the id registered again starts with no slot taken
    await fill(peer, removed.id);
    await storage.deleteAccount(account.id);
    await newDevice(storage, (await newAccount(storage)).id, ofAccount.id);
    await fill(peer, ofAccount.id);
    expect(await full(peer, bystander.id)).toBe(true);
  });

  it('a rotated token or a move to another account frees the slots; registering the device unchanged keeps them', async () => {
    const { storage, peer } = get();
    const [first, second] = [await newAccount(storage), await newAccount(storage)];
    const device = await newDevice(storage, first.id);
    await fill(storage, device.id);
    await storage.upsertDevice(device);
    expect(await full(peer, device.id)).toBe(true);
    const rotated = { ...device, tokenHash: randomHash() };
    await storage.upsertDevice(rotated);
    await fill(peer, device.id);
    await storage.upsertDevice({ ...rotated, accountId: second.id });
    await fill(peer, device.id);
    expect(await full(peer, device.id)).toBe(true);
  });
}
