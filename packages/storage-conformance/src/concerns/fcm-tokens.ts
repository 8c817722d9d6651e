import { randomBytes } from 'node:crypto';
import type { DeviceRecord } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { either, type GetHandles, newAccount, newDevice, randomHash, uid } from '../harness.js';

/** A random FCM registration token, shaped as Firebase hands them out (mixed case, `:`, `_`, `-`). */
const fcmToken = (): string => `${randomBytes(16).toString('base64url')}:APA91b${randomBytes(105).toString('base64url')}`;

const BAD = ['a\u0000b', 'a\uD800b'];

/** Rounds of each race: they are narrow (both statements in flight at once), so they are run many times. */
const RACE_ROUNDS = 40;

/** The device as a request authenticated it. */
const identity = (device: DeviceRecord) => ({ ifDevice: { accountId: device.accountId, tokenHash: device.tokenHash } });

export function fcmTokenTests(get: GetHandles): void {
  it('setFcmToken stores one token per device, exactly as given, replacing; false and nothing written for a missing device', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    const other = await newDevice(storage, account.id);
    const [first, second] = [fcmToken(), fcmToken()];
    expect(await storage.getFcmToken(device.id)).toBeNull();
    expect(await storage.setFcmToken(device.id, first)).toBe(true);
    expect(await peer.getFcmToken(device.id)).toBe(first);
    expect(await peer.setFcmToken(device.id, second)).toBe(true);
    expect(await storage.getFcmToken(device.id)).toBe(second);
    // Case matters: a token differing only in case is another token.
    expect(await storage.setFcmToken(device.id, second.toUpperCase())).toBe(true);
    expect(await peer.getFcmToken(device.id)).toBe(second.toUpperCase());
    expect(await storage.getFcmToken(other.id)).toBeNull();

    const missing = uid('missing');
    expect(await storage.setFcmToken(missing, first)).toBe(false);
    expect(await peer.getFcmToken(missing)).toBeNull();
  });

  it('removeFcmToken without conditions removes the device’s token only; true also when there is nothing to remove', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    const keeper = await newDevice(storage, account.id);
    const kept = fcmToken();
    await storage.setFcmToken(device.id, fcmToken());
    await storage.setFcmToken(keeper.id, kept);
    expect(await peer.removeFcmToken(device.id)).toBe(true);
    for (const handle of [storage, peer]) {
      expect(await handle.getFcmToken(device.id)).toBeNull();
      expect(await handle.getFcmToken(keeper.id)).toBe(kept);
    }
    expect(await peer.removeFcmToken(device.id)).toBe(true); // again: nothing to remove
    expect(await peer.removeFcmToken(uid('missing'))).toBe(true);
  });

  it('with ifToken (an FCM answer unregistered it), the token is removed on every instance, and a newer one stays', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    const [dead, fresh] = [fcmToken(), fcmToken()];
    await storage.setFcmToken(device.id, dead);
    // The app registered a new token after the push that FCM refused was sent: it stays.
    await peer.setFcmToken(device.id, fresh);
    expect(await storage.removeFcmToken(device.id, { ifToken: dead })).toBe(false);
    for (const handle of [storage, peer]) expect(await handle.getFcmToken(device.id)).toBe(fresh);
    // A token differing only in case is another token (every one has `APA91b`).
    expect(await storage.removeFcmToken(device.id, { ifToken: fresh.toLowerCase() })).toBe(false);
    expect(await peer.getFcmToken(device.id)).toBe(fresh);

    expect(await peer.removeFcmToken(device.id, { ifToken: fresh })).toBe(true);
    for (const handle of [storage, peer]) expect(await handle.getFcmToken(device.id)).toBeNull();
    // Nothing held, or no such device: that token is not held, nothing is removed.
    expect(await storage.removeFcmToken(device.id, { ifToken: fresh })).toBe(false);
    expect(await storage.removeFcmToken(uid('missing'), { ifToken: fresh })).toBe(false);
    // Registered again after the removal: the new registration is kept on every instance.
    await storage.setFcmToken(device.id, dead);
    for (const handle of [storage, peer]) expect(await handle.getFcmToken(device.id)).toBe(dead);
  });

  it('APNs and FCM tokens are apart: removing one kind keeps the other', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    const [token, widgets] = [fcmToken(), randomHash()];
    await storage.setFcmToken(device.id, token);
    await storage.setApnsRegistration(device.id, { environment: 'production', widgets });
    expect(await peer.removeApnsRegistration(device.id, identity(device))).toBe(true);
    expect(await storage.getFcmToken(device.id)).toBe(token);
    await storage.setApnsRegistration(device.id, { environment: 'production', widgets });
    expect(await peer.removeFcmToken(device.id, identity(device))).toBe(true);
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: null, widgets, channels: false });
    expect(await storage.getFcmToken(device.id)).toBeNull();
  });

  it('a device that is removed loses its FCM token (a new device of the same id starts with none)', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    await storage.setFcmToken(device.id, fcmToken());
    expect(await peer.deleteDevice(device.id)).toBe(true);
    await storage.upsertDevice({ ...device, tokenHash: randomHash() });
    for (const handle of [storage, peer]) expect(await handle.getFcmToken(device.id)).toBeNull();
  });

  it('a device removed with its account loses its FCM token', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    await storage.setFcmToken(device.id, fcmToken());
    expect(await peer.deleteAccount(account.id)).toBe(true);
    await storage.upsertAccount(account);
    await storage.upsertDevice(device);
    for (const handle of [storage, peer]) expect(await handle.getFcmToken(device.id)).toBeNull();
  });

  it('a device whose token changes, or that moves to another account, loses its FCM token; the same token keeps it', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    const token = fcmToken();
    await storage.setFcmToken(device.id, token);
    await peer.upsertDevice({ ...device }); // unchanged: kept
    expect(await storage.getFcmToken(device.id)).toBe(token);

    const rotated = { ...device, tokenHash: randomHash() };
    await peer.upsertDevice(rotated);
    expect(await storage.getFcmToken(device.id)).toBeNull();

    await storage.setFcmToken(device.id, token);
    const elsewhere = await newAccount(storage);
    await peer.upsertDevice({ ...rotated, accountId: elsewhere.id });
    expect(await storage.getFcmToken(device.id)).toBeNull();
  });

  it('with ifDevice, a write is made only while the device still has that account and token hash', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    const token = fcmToken();
    expect(await storage.setFcmToken(device.id, token, identity(device))).toBe(true);
    expect(await peer.getFcmToken(device.id)).toBe(token);

    // The token was rotated after the request authenticated: nothing of the old app's is written.
    await peer.upsertDevice({ ...device, tokenHash: randomHash() });
    expect(await storage.setFcmToken(device.id, fcmToken(), identity(device))).toBe(false);
    expect(await peer.getFcmToken(device.id)).toBeNull();

    // Removed, and registered again under the same id with another token: still not that device.
    const again = await newDevice(storage, account.id);
    expect(await peer.deleteDevice(again.id)).toBe(true);
    expect(await storage.setFcmToken(again.id, fcmToken(), identity(again))).toBe(false);
    await peer.upsertDevice({ ...again, tokenHash: randomHash() });
    expect(await storage.setFcmToken(again.id, fcmToken(), identity(again))).toBe(false);
    expect(await peer.getFcmToken(again.id)).toBeNull();

    // Moved to another account with the same token: the identity names the old account.
    const moving = await newDevice(storage, account.id);
    const elsewhere = await newAccount(storage);
    await peer.upsertDevice({ ...moving, accountId: elsewhere.id });
    expect(await storage.setFcmToken(moving.id, fcmToken(), identity(moving))).toBe(false);
    expect(await peer.getFcmToken(moving.id)).toBeNull();
  });

  it('with ifDevice, a removal is made only while the device still has that account and token hash', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    await storage.setFcmToken(device.id, fcmToken());
    expect(await peer.removeFcmToken(device.id, identity(device))).toBe(true);
    expect(await storage.getFcmToken(device.id)).toBeNull();
    expect(await peer.removeFcmToken(device.id, identity(device))).toBe(true); // nothing left: still made

    // The token was rotated and the new app registered: the old app's removal takes nothing.
    const rotated = { ...device, tokenHash: randomHash() };
    await peer.upsertDevice(rotated);
    const token = fcmToken();
    expect(await storage.setFcmToken(device.id, token, identity(rotated))).toBe(true);
    expect(await peer.removeFcmToken(device.id, identity(device))).toBe(false);
    for (const handle of [storage, peer]) expect(await handle.getFcmToken(device.id)).toBe(token);
    // Both conditions: both must hold.
    expect(await peer.removeFcmToken(device.id, { ...identity(device), ifToken: token })).toBe(false);
    expect(await peer.removeFcmToken(device.id, { ...identity(rotated), ifToken: fcmToken() })).toBe(false);
    expect(await storage.getFcmToken(device.id)).toBe(token);
    expect(await peer.removeFcmToken(device.id, { ...identity(rotated), ifToken: token })).toBe(true);
    expect(await storage.getFcmToken(device.id)).toBeNull();
    // Removed: no identity holds; without one, a removal of nothing is made.
    expect(await peer.deleteDevice(device.id)).toBe(true);
    expect(await storage.removeFcmToken(device.id, identity(rotated))).toBe(false);
    expect(await storage.removeFcmToken(device.id)).toBe(true);
  });

  it("a stale removal racing a token rotation from another instance never takes the new app's token", async () => {
    const handles = get();
    const account = await newAccount(handles.storage);
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const device = await newDevice(handles.storage, account.id);
      const rotated = { ...device, tokenHash: randomHash() };
      const token = fcmToken();
      const remover = either(handles, round);
      const changer = either(handles, round + 1);
      // The old app's DELETE /device/fcm, in flight while the phone's token is rotated and
      // the new app registers through another instance.
      await Promise.all([
        remover.removeFcmToken(device.id, identity(device)),
        changer.upsertDevice(rotated).then(() => changer.setFcmToken(device.id, token, identity(rotated))),
        remover.removeFcmToken(device.id, identity(device)),
      ]);
      for (const handle of [handles.storage, handles.peer]) expect(await handle.getFcmToken(device.id)).toBe(token);
    }
  });

  it('a registration racing a token rotation or a removal from another instance never stays behind', async () => {
    const handles = get();
    const account = await newAccount(handles.storage);
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const device = await newDevice(handles.storage, account.id);
      const writer = either(handles, round);
      const changer = either(handles, round + 1);
      const removing = round % 4 === 3;
      // PUT /device/fcm of a request that authenticated with the old token, in flight while
      // the token is rotated (or the device removed) through another instance.
      await Promise.all([
        writer.setFcmToken(device.id, fcmToken(), identity(device)),
        removing ? changer.deleteDevice(device.id) : changer.upsertDevice({ ...device, tokenHash: randomHash() }),
        writer.setFcmToken(device.id, fcmToken(), identity(device)),
      ]);
      if (removing) await handles.storage.upsertDevice({ ...device, tokenHash: randomHash() }); // the same id, another phone
      for (const handle of [handles.storage, handles.peer]) expect(await handle.getFcmToken(device.id)).toBeNull();
    }
  });

  it('a removal after an FCM answer racing a new registration from another instance never takes the new token', async () => {
    const handles = get();
    const account = await newAccount(handles.storage);
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const device = await newDevice(handles.storage, account.id);
      const [dead, fresh] = [fcmToken(), fcmToken()];
      await handles.storage.setFcmToken(device.id, dead);
      const remover = either(handles, round);
      const writer = either(handles, round + 1);
      // The transport removes the token FCM refused while the app registers its new one.
      // Either the refused token is removed before the new one comes, or it is replaced first.
      await Promise.all([remover.removeFcmToken(device.id, { ifToken: dead }), writer.setFcmToken(device.id, fresh, identity(device))]);
      for (const handle of [handles.storage, handles.peer]) expect(await handle.getFcmToken(device.id)).toBe(fresh);
    }
  });

  it('values no store can hold: keys name nothing, a token is refused with a TypeError when it would be written', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    const token = fcmToken();
    await storage.setFcmToken(device.id, token);
    for (const bad of BAD) {
      expect(await storage.setFcmToken(bad, token)).toBe(false);
      expect(await storage.getFcmToken(bad)).toBeNull();
      expect(await storage.removeFcmToken(bad)).toBe(true);
      expect(await storage.removeFcmToken(bad, identity(device))).toBe(false);
      expect(await storage.removeFcmToken(bad, { ifToken: token })).toBe(false);
      // A token no store can hold is never the one held.
      expect(await storage.removeFcmToken(device.id, { ifToken: bad })).toBe(false);
      // A missing device answers first; an existing one refuses the write.
      expect(await storage.setFcmToken(uid('missing'), bad)).toBe(false);
      await expect(storage.setFcmToken(device.id, bad)).rejects.toThrow(TypeError);
      // An identity no store can hold is never the device's.
      for (const ifDevice of [
        { accountId: bad, tokenHash: device.tokenHash },
        { accountId: account.id, tokenHash: bad },
      ]) {
        expect(await storage.setFcmToken(device.id, fcmToken(), { ifDevice })).toBe(false);
        expect(await storage.removeFcmToken(device.id, { ifDevice })).toBe(false);
      }
    }
    expect(await storage.getFcmToken(device.id)).toBe(token);
  });

  it('getFcmTokens (when the store has it) answers what getFcmToken answers for each device that has a token, and leaves the others out', async () => {
    const { storage, peer } = get();
    if (storage.getFcmTokens === undefined) return; // optional in the contract: the transport reads one device at a time
    const account = await newAccount(storage);
    const [first, second, bare] = [await newDevice(storage, account.id), await newDevice(storage, account.id), await newDevice(storage, account.id)];
    const stranger = await newDevice(storage, (await newAccount(storage)).id);
    const [firstToken, secondToken] = [fcmToken(), fcmToken()];
    await storage.setFcmToken(first.id, firstToken);
    await storage.setFcmToken(second.id, secondToken);
    await storage.setFcmToken(stranger.id, fcmToken());
    const missing = uid('missing');
    const asked = [first.id, bare.id, second.id, missing, stranger.id, first.id, ...BAD];
    for (const handle of [storage, peer]) {
      const found = await handle.getFcmTokens!(asked);
      expect([...found.keys()].sort()).toEqual([first.id, second.id, stranger.id].sort());
      for (const id of [first.id, second.id, bare.id, missing, stranger.id]) expect(found.get(id) ?? null).toBe(await handle.getFcmToken(id));
      expect(await handle.getFcmTokens!([])).toEqual(new Map());
      expect(await handle.getFcmTokens!([bare.id, missing, ...BAD])).toEqual(new Map());
    }
    // A token FCM refused is gone from the next batch read.
    expect(await peer.removeFcmToken(first.id, { ifToken: firstToken })).toBe(true);
    expect(await storage.getFcmTokens([first.id, second.id])).toEqual(new Map([[second.id, secondToken]]));
  });
}
