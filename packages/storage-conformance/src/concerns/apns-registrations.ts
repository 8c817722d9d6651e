import type { ApnsRegistration, Storage } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { either, type GetHandles, newAccount, newActivity, newDevice, randomHash, uid } from '../harness.js';

/** A random lower-case hex APNs token, as the core passes them. */
const apnsToken = (): string => randomHash();

const BAD = ['a\u0000b', 'a\uD800b'];

/** Rounds of the rotation race: it is narrow (both statements in flight at once), so it is run many times. */
const RACE_ROUNDS = 40;

async function deviceWithActivity(storage: Storage) {
  const account = await newAccount(storage);
  const device = await newDevice(storage, account.id);
  const activity = await newActivity(storage, account.id);
  return { account, device, activity };
}

export function apnsRegistrationTests(get: GetHandles): void {
  it('setApnsRegistration registers tokens: an omitted token is kept, null removes it, the environment is replaced', async () => {
    const { storage, peer } = get();
    const { device } = await deviceWithActivity(storage);
    expect(await storage.getApnsRegistration(device.id)).toBeNull();
    const [start, widgets, next] = [apnsToken(), apnsToken(), apnsToken()];
    expect(await storage.setApnsRegistration(device.id, { environment: 'sandbox', pushToStart: start })).toBe(true);
    expect(await peer.getApnsRegistration(device.id)).toEqual({ environment: 'sandbox', pushToStart: start, widgets: null, channels: false });
    expect(await peer.setApnsRegistration(device.id, { environment: 'production', widgets })).toBe(true);
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: start, widgets, channels: false });
    expect(await storage.setApnsRegistration(device.id, { environment: 'production', pushToStart: null, widgets: next })).toBe(true);
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: null, widgets: next, channels: false });
    expect(await storage.setApnsRegistration(device.id, { environment: 'sandbox' })).toBe(true);
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'sandbox', pushToStart: null, widgets: next, channels: false });
  });

  it('setApnsRegistration is false and writes nothing for a device that does not exist', async () => {
    const { storage } = get();
    const missing = uid('missing');
    expect(await storage.setApnsRegistration(missing, { environment: 'sandbox', widgets: apnsToken() })).toBe(false);
    expect(await storage.getApnsRegistration(missing)).toBeNull();
  });

  it('a registration read is a copy', async () => {
    const { storage } = get();
    const { device } = await deviceWithActivity(storage);
    const widgets = apnsToken();
    await storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets });
    const read = (await storage.getApnsRegistration(device.id)) as ApnsRegistration;
    read.widgets = null;
    read.environment = 'production';
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'sandbox', pushToStart: null, widgets, channels: false });
  });

  it("setActivityPushToken stores one token per device and activity, replacing; false for a missing device, a missing activity or another account's activity", async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const other = await deviceWithActivity(storage);
    const [first, second] = [apnsToken(), apnsToken()];
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
    expect(await storage.setActivityPushToken(device.id, account.id, activity.slug, first)).toBe(true);
    expect(await peer.getActivityPushToken(device.id, account.id, activity.slug)).toBe(first);
    expect(await peer.setActivityPushToken(device.id, account.id, activity.slug, second)).toBe(true);
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBe(second);

    expect(await storage.setActivityPushToken(uid('missing'), account.id, activity.slug, first)).toBe(false);
    expect(await storage.setActivityPushToken(device.id, account.id, uid('missing'), first)).toBe(false);
    // An activity of another account is not shown on this device.
    expect(await storage.setActivityPushToken(device.id, other.account.id, other.activity.slug, first)).toBe(false);
    expect(await storage.getActivityPushToken(device.id, other.account.id, other.activity.slug)).toBeNull();
    // Other devices and activities are untouched.
    expect(await storage.getActivityPushToken(other.device.id, account.id, activity.slug)).toBeNull();
  });

  it('forgetActivityPushToken with ifToken forgets only while the token is still that one (an update token is forgotten after end)', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const [ended, fresh] = [apnsToken(), apnsToken()];
    await storage.setActivityPushToken(device.id, account.id, activity.slug, ended);
    // The app registered a new Live Activity's token before the end was sent: it stays.
    await peer.setActivityPushToken(device.id, account.id, activity.slug, fresh);
    await storage.forgetActivityPushToken(device.id, account.id, activity.slug, { ifToken: ended });
    expect(await peer.getActivityPushToken(device.id, account.id, activity.slug)).toBe(fresh);
    await storage.forgetActivityPushToken(device.id, account.id, activity.slug, { ifToken: fresh });
    expect(await peer.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
    // Without a condition (`DELETE /device/activities/.../push`), whatever the token; twice is fine.
    await storage.setActivityPushToken(device.id, account.id, activity.slug, ended);
    await peer.forgetActivityPushToken(device.id, account.id, activity.slug);
    await peer.forgetActivityPushToken(device.id, account.id, activity.slug);
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
  });

  it('a token removed by an APNs answer stays removed on every instance, wherever the device registered it', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const second = await newActivity(storage, account.id);
    const [dead, kept, update] = [apnsToken(), apnsToken(), apnsToken()];
    await storage.setApnsRegistration(device.id, { environment: 'production', pushToStart: dead, widgets: kept });
    await storage.setActivityPushToken(device.id, account.id, activity.slug, dead);
    await storage.setActivityPushToken(device.id, account.id, second.slug, update);
    await peer.removeApnsToken(device.id, dead);
    for (const handle of [storage, peer]) {
      expect(await handle.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: null, widgets: kept, channels: false });
      expect(await handle.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
      expect(await handle.getActivityPushToken(device.id, account.id, second.slug)).toBe(update);
    }
    await storage.removeApnsToken(device.id, kept);
    await storage.removeApnsToken(device.id, apnsToken()); // not held: a no-op
    await storage.removeApnsToken(uid('missing'), kept);
    expect(await peer.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: null, widgets: null, channels: false });
    expect(await peer.getActivityPushToken(device.id, account.id, second.slug)).toBe(update);
  });

  it('removeApnsToken touches only the named device', async () => {
    const { storage, peer } = get();
    const { account, device } = await deviceWithActivity(storage);
    const twin = await newDevice(storage, account.id);
    const shared = apnsToken(); // no two devices share a token, but a store must not assume it
    await storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets: shared });
    await storage.setApnsRegistration(twin.id, { environment: 'sandbox', widgets: shared });
    await peer.removeApnsToken(device.id, shared);
    expect((await storage.getApnsRegistration(twin.id))?.widgets).toBe(shared);
  });

  it('removeApnsRegistration removes every APNs token of the device, update tokens included', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const keeper = await newDevice(storage, account.id);
    for (const id of [device.id, keeper.id]) {
      await storage.setApnsRegistration(id, { environment: 'sandbox', pushToStart: apnsToken(), widgets: apnsToken() });
      await storage.setActivityPushToken(id, account.id, activity.slug, apnsToken());
    }
    await peer.removeApnsRegistration(device.id);
    expect(await storage.getApnsRegistration(device.id)).toBeNull();
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
    expect(await storage.getApnsRegistration(keeper.id)).not.toBeNull();
    expect(await storage.getActivityPushToken(keeper.id, account.id, activity.slug)).not.toBeNull();
    expect(await peer.removeApnsRegistration(device.id)).toBe(true); // again: nothing to remove
    expect(await peer.removeApnsRegistration(uid('missing'))).toBe(true);
  });

  it('a device that is removed loses its registrations (a new device of the same id starts with none)', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    await storage.setApnsRegistration(device.id, { environment: 'sandbox', pushToStart: apnsToken(), widgets: apnsToken() });
    await storage.setActivityPushToken(device.id, account.id, activity.slug, apnsToken());
    expect(await peer.deleteDevice(device.id)).toBe(true);
    await storage.upsertDevice({ ...device, tokenHash: randomHash() });
    expect(await storage.getApnsRegistration(device.id)).toBeNull();
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
  });

  it('a device removed with its account loses its registrations', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    await storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets: apnsToken() });
    await storage.setActivityPushToken(device.id, account.id, activity.slug, apnsToken());
    expect(await peer.deleteAccount(account.id)).toBe(true);
    await storage.upsertAccount(account);
    await storage.upsertDevice(device);
    await storage.putActivity({ accountId: account.id, slug: activity.slug, template: activity.template, dismissalDelayS: 30 });
    expect(await storage.getApnsRegistration(device.id)).toBeNull();
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
  });

  it('a device whose token changes, or that moves to another account, loses its registrations; the same token keeps them', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const register = async () => {
      await storage.setApnsRegistration(device.id, { environment: 'sandbox', pushToStart: apnsToken(), widgets: apnsToken() });
      await storage.setActivityPushToken(device.id, account.id, activity.slug, apnsToken());
    };
    await register();
    await peer.upsertDevice({ ...device }); // unchanged: kept
    expect(await storage.getApnsRegistration(device.id)).not.toBeNull();
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).not.toBeNull();

    const rotated = { ...device, tokenHash: randomHash() };
    await peer.upsertDevice(rotated);
    expect(await storage.getApnsRegistration(device.id)).toBeNull();
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();

    await register();
    const elsewhere = await newAccount(storage);
    await peer.upsertDevice({ ...rotated, accountId: elsewhere.id });
    expect(await storage.getApnsRegistration(device.id)).toBeNull();
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
  });

  it('with ifDevice, a write is made only while the device still has that account and token hash', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const asAuthenticated = { ifDevice: { accountId: device.accountId, tokenHash: device.tokenHash } };
    const [start, update] = [apnsToken(), apnsToken()];
    expect(await storage.setApnsRegistration(device.id, { environment: 'sandbox', pushToStart: start }, asAuthenticated)).toBe(true);
    expect(await storage.setActivityPushToken(device.id, account.id, activity.slug, update, asAuthenticated)).toBe(true);
    expect(await peer.getApnsRegistration(device.id)).toEqual({ environment: 'sandbox', pushToStart: start, widgets: null, channels: false });

    // The token was rotated after the request authenticated: nothing of the old app's is written.
    await peer.upsertDevice({ ...device, tokenHash: randomHash() });
    expect(await storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets: apnsToken() }, asAuthenticated)).toBe(false);
    expect(await storage.setActivityPushToken(device.id, account.id, activity.slug, apnsToken(), asAuthenticated)).toBe(false);
    expect(await peer.getApnsRegistration(device.id)).toBeNull();
    expect(await peer.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();

    // Removed, and registered again under the same id with another token: still not that device.
    const again = await newDevice(storage, account.id);
    const original = { ifDevice: { accountId: again.accountId, tokenHash: again.tokenHash } };
    expect(await peer.deleteDevice(again.id)).toBe(true);
    expect(await storage.setApnsRegistration(again.id, { environment: 'sandbox', widgets: apnsToken() }, original)).toBe(false);
    await peer.upsertDevice({ ...again, tokenHash: randomHash() });
    expect(await storage.setApnsRegistration(again.id, { environment: 'sandbox', widgets: apnsToken() }, original)).toBe(false);
    expect(await storage.setActivityPushToken(again.id, account.id, activity.slug, apnsToken(), original)).toBe(false);
    expect(await peer.getApnsRegistration(again.id)).toBeNull();

    // Moved to another account with the same token: the identity names the old account.
    const moving = await newDevice(storage, account.id);
    const before = { ifDevice: { accountId: moving.accountId, tokenHash: moving.tokenHash } };
    const elsewhere = await newAccount(storage);
    await peer.upsertDevice({ ...moving, accountId: elsewhere.id });
    expect(await storage.setApnsRegistration(moving.id, { environment: 'sandbox', widgets: apnsToken() }, before)).toBe(false);
    expect(await peer.getApnsRegistration(moving.id)).toBeNull();
  });

  it('with ifDevice, a removal is made only while the device still has that account and token hash', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const asAuthenticated = { ifDevice: { accountId: device.accountId, tokenHash: device.tokenHash } };
    await storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets: apnsToken() });
    expect(await peer.removeApnsRegistration(device.id, asAuthenticated)).toBe(true);
    expect(await storage.getApnsRegistration(device.id)).toBeNull();
    expect(await peer.removeApnsRegistration(device.id, asAuthenticated)).toBe(true); // nothing left: still made

    // The token was rotated and the new app registered: the old app's removal takes nothing.
    const rotated = { ...device, tokenHash: randomHash() };
    await peer.upsertDevice(rotated);
    const [widgets, update] = [apnsToken(), apnsToken()];
    const current = { ifDevice: { accountId: rotated.accountId, tokenHash: rotated.tokenHash } };
    expect(await storage.setApnsRegistration(device.id, { environment: 'production', widgets }, current)).toBe(true);
    expect(await storage.setActivityPushToken(device.id, account.id, activity.slug, update, current)).toBe(true);
    expect(await peer.removeApnsRegistration(device.id, asAuthenticated)).toBe(false);
    for (const handle of [storage, peer]) {
      expect(await handle.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: null, widgets, channels: false });
      expect(await handle.getActivityPushToken(device.id, account.id, activity.slug)).toBe(update);
    }
    // Removed: no identity holds; without one, a removal of nothing is made.
    expect(await peer.deleteDevice(device.id)).toBe(true);
    expect(await storage.removeApnsRegistration(device.id, current)).toBe(false);
    expect(await storage.removeApnsRegistration(device.id)).toBe(true);
  });

  it("a stale removal racing a token rotation from another instance never takes the new app's registration", async () => {
    const handles = get();
    const { storage } = handles;
    const account = await newAccount(storage);
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const device = await newDevice(storage, account.id);
      const stale = { ifDevice: { accountId: device.accountId, tokenHash: device.tokenHash } };
      const rotated = { ...device, tokenHash: randomHash() };
      const fresh = { ifDevice: { accountId: rotated.accountId, tokenHash: rotated.tokenHash } };
      const widgets = apnsToken();
      const remover = either(handles, round);
      const changer = either(handles, round + 1);
      // The old app's DELETE /device/push, in flight while the phone's token is rotated and
      // the new app registers through another instance.
      await Promise.all([
        remover.removeApnsRegistration(device.id, stale),
        changer.upsertDevice(rotated).then(() => changer.setApnsRegistration(device.id, { environment: 'production', widgets }, fresh)),
        remover.removeApnsRegistration(device.id, stale),
      ]);
      for (const handle of [handles.storage, handles.peer]) {
        expect(await handle.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: null, widgets, channels: false });
      }
    }
  });

  it('a registration racing a token rotation or a removal from another instance never stays behind', async () => {
    const handles = get();
    const { storage } = handles;
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const device = await newDevice(storage, account.id);
      const asAuthenticated = { ifDevice: { accountId: device.accountId, tokenHash: device.tokenHash } };
      const writer = either(handles, round);
      const changer = either(handles, round + 1);
      const removing = round % 4 === 3;
      // The device sync writes of a request that authenticated with the old token, in
      // flight while the token is rotated (or the device removed) through another instance.
      await Promise.all([
        writer.setApnsRegistration(device.id, { environment: 'production', pushToStart: apnsToken(), widgets: apnsToken() }, asAuthenticated),
        writer.setActivityPushToken(device.id, account.id, activity.slug, apnsToken(), asAuthenticated),
        removing ? changer.deleteDevice(device.id) : changer.upsertDevice({ ...device, tokenHash: randomHash() }),
        writer.setApnsRegistration(device.id, { environment: 'production', widgets: apnsToken() }, asAuthenticated),
      ]);
      if (removing) await storage.upsertDevice({ ...device, tokenHash: randomHash() }); // the same id, another phone
      for (const handle of [handles.storage, handles.peer]) {
        expect(await handle.getApnsRegistration(device.id)).toBeNull();
        expect(await handle.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
      }
    }
  });

  it('an activity that is removed loses its update tokens; the device keeps its other tokens', async () => {
    const { storage, peer } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const other = await newActivity(storage, account.id);
    const [token, otherToken, widgets] = [apnsToken(), apnsToken(), apnsToken()];
    await storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets });
    await storage.setActivityPushToken(device.id, account.id, activity.slug, token);
    await storage.setActivityPushToken(device.id, account.id, other.slug, otherToken);
    expect(await peer.deleteActivity(account.id, activity.slug)).toBe(true);
    await storage.putActivity({ accountId: account.id, slug: activity.slug, template: activity.template, dismissalDelayS: 30 });
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBeNull();
    expect(await storage.getActivityPushToken(device.id, account.id, other.slug)).toBe(otherToken);
    expect((await storage.getApnsRegistration(device.id))?.widgets).toBe(widgets);
  });

  it('values no store can hold: keys name nothing, a token is refused with a TypeError when it would be written', async () => {
    const { storage } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    const token = apnsToken();
    await storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets: token });
    await storage.setActivityPushToken(device.id, account.id, activity.slug, token);
    for (const bad of BAD) {
      expect(await storage.setApnsRegistration(bad, { environment: 'sandbox', widgets: token })).toBe(false);
      expect(await storage.getApnsRegistration(bad)).toBeNull();
      expect(await storage.removeApnsRegistration(bad)).toBe(true);
      expect(await storage.removeApnsRegistration(bad, { ifDevice: { accountId: account.id, tokenHash: device.tokenHash } })).toBe(false);
      expect(await storage.setActivityPushToken(bad, account.id, activity.slug, token)).toBe(false);
      expect(await storage.setActivityPushToken(device.id, bad, activity.slug, token)).toBe(false);
      expect(await storage.setActivityPushToken(device.id, account.id, bad, token)).toBe(false);
      expect(await storage.getActivityPushToken(bad, account.id, activity.slug)).toBeNull();
      expect(await storage.getActivityPushToken(device.id, account.id, bad)).toBeNull();
      await storage.forgetActivityPushToken(bad, account.id, activity.slug);
      await storage.forgetActivityPushToken(device.id, account.id, activity.slug, { ifToken: bad });
      await storage.removeApnsToken(device.id, bad);
      await storage.removeApnsToken(bad, token);
      // A missing device or activity answers first; an existing one refuses the write.
      expect(await storage.setApnsRegistration(uid('missing'), { environment: 'sandbox', widgets: bad })).toBe(false);
      expect(await storage.setActivityPushToken(device.id, account.id, uid('missing'), bad)).toBe(false);
      await expect(storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets: bad })).rejects.toThrow(TypeError);
      await expect(storage.setApnsRegistration(device.id, { environment: 'sandbox', pushToStart: bad })).rejects.toThrow(TypeError);
      await expect(storage.setActivityPushToken(device.id, account.id, activity.slug, bad)).rejects.toThrow(TypeError);
      // An identity no store can hold is never the device's.
      for (const ifDevice of [
        { accountId: bad, tokenHash: device.tokenHash },
        { accountId: account.id, tokenHash: bad },
      ]) {
        expect(await storage.setApnsRegistration(device.id, { environment: 'production', widgets: apnsToken() }, { ifDevice })).toBe(false);
        expect(await storage.setActivityPushToken(device.id, account.id, activity.slug, apnsToken(), { ifDevice })).toBe(false);
        expect(await storage.removeApnsRegistration(device.id, { ifDevice })).toBe(false);
      }
    }
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'sandbox', pushToStart: null, widgets: token, channels: false });
    expect(await storage.getActivityPushToken(device.id, account.id, activity.slug)).toBe(token);
  });

  it('getApnsRegistrations (when the store has it) answers what getApnsRegistration answers for each device that has a registration, and leaves the others out', async () => {
    const { storage, peer } = get();
    if (storage.getApnsRegistrations === undefined) return; // optional in the contract: the transports read one device at a time
    const account = await newAccount(storage);
    const [start, widgets] = [apnsToken(), apnsToken()];
    const [sandbox, following, bare] = [await newDevice(storage, account.id), await newDevice(storage, account.id), await newDevice(storage, account.id)];
    const stranger = await newDevice(storage, (await newAccount(storage)).id);
    await storage.setApnsRegistration(sandbox.id, { environment: 'sandbox', pushToStart: start });
    await storage.setApnsRegistration(following.id, { environment: 'production', widgets, channels: true });
    await storage.setApnsRegistration(stranger.id, { environment: 'production', widgets: apnsToken() });
    const missing = uid('missing');
    const asked = [sandbox.id, following.id, bare.id, missing, stranger.id, sandbox.id];
    for (const handle of [storage, peer]) {
      const found = await handle.getApnsRegistrations!(asked);
      expect([...found.keys()].sort()).toEqual([sandbox.id, following.id, stranger.id].sort());
      for (const id of asked) expect(found.get(id) ?? null).toEqual(await handle.getApnsRegistration(id));
      expect(await handle.getApnsRegistrations!([])).toEqual(new Map());
      expect(await handle.getApnsRegistrations!([bare.id, missing])).toEqual(new Map());
    }
    // Copies, as every read.
    const read = (await storage.getApnsRegistrations([sandbox.id])).get(sandbox.id)!;
    read.pushToStart = null;
    expect(await storage.getApnsRegistration(sandbox.id)).toEqual({ environment: 'sandbox', pushToStart: start, widgets: null, channels: false });
    // A token APNs refused is gone from the next batch read.
    await peer.removeApnsToken(following.id, widgets);
    expect((await storage.getApnsRegistrations([following.id])).get(following.id)).toEqual({
      environment: 'production',
      pushToStart: null,
      widgets: null,
      channels: true,
    });
  });

  it("getActivityPushTargets (when the store has it) answers each registered device's registration with the activity's update token, never another activity's or account's", async () => {
    const { storage, peer } = get();
    if (storage.getActivityPushTargets === undefined) return; // optional in the contract
    const { account, device: holder, activity } = await deviceWithActivity(storage);
    const second = await newActivity(storage, account.id);
    const [withoutToken, tokenOnly, unregistered] = [
      await newDevice(storage, account.id),
      await newDevice(storage, account.id),
      await newDevice(storage, account.id),
    ];
    const [holderToken, secondToken, orphanToken] = [apnsToken(), apnsToken(), apnsToken()];
    await storage.setApnsRegistration(holder.id, { environment: 'sandbox', widgets: apnsToken() });
    await storage.setActivityPushToken(holder.id, account.id, activity.slug, holderToken);
    await storage.setApnsRegistration(withoutToken.id, { environment: 'production', pushToStart: apnsToken(), channels: true });
    await storage.setActivityPushToken(withoutToken.id, account.id, second.slug, secondToken);
    // An update token without a registration: no push reaches the device, so it is left out.
    await storage.setActivityPushToken(tokenOnly.id, account.id, activity.slug, orphanToken);
    // A device of another account, registered, with a token of its own account's activity of the same slug.
    const otherAccount = await newAccount(storage);
    const stranger = await newDevice(storage, otherAccount.id);
    await storage.putActivity({ accountId: otherAccount.id, slug: activity.slug, template: activity.template, dismissalDelayS: 30 });
    await storage.setApnsRegistration(stranger.id, { environment: 'production', widgets: apnsToken() });
    expect(await storage.setActivityPushToken(stranger.id, otherAccount.id, activity.slug, apnsToken())).toBe(true);

    const asked = [holder.id, withoutToken.id, tokenOnly.id, unregistered.id, stranger.id, uid('missing'), holder.id];
    for (const handle of [storage, peer]) {
      const found = await handle.getActivityPushTargets!(account.id, activity.slug, asked);
      expect([...found.keys()].sort()).toEqual([holder.id, withoutToken.id, stranger.id].sort());
      for (const [id, target] of found) {
        expect(target.registration).toEqual(await handle.getApnsRegistration(id));
        expect(target.token).toBe(await handle.getActivityPushToken(id, account.id, activity.slug));
      }
      expect(found.get(holder.id)?.token).toBe(holderToken);
      expect(found.get(withoutToken.id)?.token).toBeNull(); // its token is the second activity's
      expect(found.get(stranger.id)?.token).toBeNull(); // its token is its own account's activity's
      expect((await handle.getActivityPushTargets!(account.id, second.slug, [withoutToken.id])).get(withoutToken.id)?.token).toBe(secondToken);
      expect(await handle.getActivityPushTargets!(account.id, activity.slug, [])).toEqual(new Map());
      expect(await handle.getActivityPushTargets!(account.id, uid('missing'), [holder.id])).toEqual(
        new Map([[holder.id, { registration: await handle.getApnsRegistration(holder.id), token: null }]]),
      );
    }
    // After the end's token is forgotten, the next read has none.
    await peer.forgetActivityPushToken(holder.id, account.id, activity.slug, { ifToken: holderToken });
    expect((await storage.getActivityPushTargets(account.id, activity.slug, [holder.id])).get(holder.id)?.token).toBeNull();
  });

  it('batch reads leave out the ids no store can hold, and an activity no store can hold has no targets', async () => {
    const { storage } = get();
    const { account, device, activity } = await deviceWithActivity(storage);
    await storage.setApnsRegistration(device.id, { environment: 'sandbox', widgets: apnsToken() });
    await storage.setActivityPushToken(device.id, account.id, activity.slug, apnsToken());
    for (const bad of BAD) {
      if (storage.getApnsRegistrations !== undefined) {
        expect([...(await storage.getApnsRegistrations([bad, device.id])).keys()]).toEqual([device.id]);
        expect(await storage.getApnsRegistrations([bad])).toEqual(new Map());
      }
      if (storage.getActivityPushTargets !== undefined) {
        expect([...(await storage.getActivityPushTargets(account.id, activity.slug, [device.id, bad])).keys()]).toEqual([device.id]);
        expect(await storage.getActivityPushTargets(bad, activity.slug, [device.id])).toEqual(new Map());
        expect(await storage.getActivityPushTargets(account.id, bad, [device.id])).toEqual(new Map());
      }
    }
  });
}
