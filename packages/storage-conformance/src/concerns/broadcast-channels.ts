import type { ApnsEnvironment, HeldChannel, Storage } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, content, either, iso, newAccount, newActivity, newDevice, randomHash, uid, written } from '../harness.js';

/** Rounds of each race: a lost compare-and-set shows only when both writes are in flight at once. */
const RACE_ROUNDS = 20;

/** Racers per round, spread over both handles. */
const RACERS = 6;

const NO_CHANNELS = { production: null, sandbox: null };

/** A channel id as APNs hands them out (base64 of 16 bytes), unique across runs. */
const channelId = (): string => Buffer.from(randomHash().slice(0, 32), 'hex').toString('base64');

/** Code-unit order, as every listing of the contract. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The channels held by activities of `accountId` (other tests share the store). */
async function heldBy(storage: Storage, accountId: string): Promise<HeldChannel[]> {
  const held = await storage.listActivityChannels();
  return held.filter((channel) => channel.accountId === accountId).sort((a, b) => byCodeUnit(a.slug, b.slug) || byCodeUnit(a.environment, b.environment));
}

/** A device of `accountId` registered for APNs in `environment`, following channels or not. */
async function registered(storage: Storage, accountId: string, environment: ApnsEnvironment, channels: boolean, id?: string) {
  const device = await newDevice(storage, accountId, id);
  expect(await storage.setApnsRegistration(device.id, { environment, widgets: randomHash(), channels })).toBe(true);
  return device;
}

/**
 * docs/contract/broadcast-channels.md: an activity's delivery and its broadcast channel per
 * environment (compare-and-set, an id held by one activity and environment at most, gone
 * with the activity), and the devices that follow channels.
 */
export function broadcastChannelTests(get: GetHandles): void {
  it('putActivity stores delivery and frequentUpdates (default tokens and false); putting it again changes them and keeps the channels', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const plain = await newActivity(storage, account.id);
    expect(await peer.getActivity(account.id, plain.slug)).toMatchObject({ delivery: 'tokens', frequentUpdates: false, channels: NO_CHANNELS });
    const slug = uid('act');
    await storage.putActivity({ accountId: account.id, slug, template: 'progress', dismissalDelayS: 30, delivery: 'broadcast', frequentUpdates: true });
    expect(await peer.getActivity(account.id, slug)).toMatchObject({ delivery: 'broadcast', frequentUpdates: true, channels: NO_CHANNELS });

    const [production, sandbox] = [channelId(), channelId()];
    expect(await storage.setActivityChannel(account.id, slug, 'production', production)).toBe(true);
    expect(await peer.setActivityChannel(account.id, slug, 'sandbox', sandbox)).toBe(true);
    await peer.putActivity({ accountId: account.id, slug, template: 'progress', dismissalDelayS: 60 });
    expect(await storage.getActivity(account.id, slug)).toMatchObject({
      dismissalDelayS: 60,
      delivery: 'tokens',
      frequentUpdates: false,
      channels: { production, sandbox },
    });
    // Another template resets the activity's state, never its channels (they are deleted after an end).
    await storage.putActivity({ accountId: account.id, slug, template: 'countdown', dismissalDelayS: 5, delivery: 'broadcast' });
    expect(await peer.getActivity(account.id, slug)).toMatchObject({
      template: 'countdown',
      delivery: 'broadcast',
      frequentUpdates: false,
      channels: { production, sandbox },
    });
    expect((await heldBy(storage, account.id)).map((held) => held.channelId).sort()).toEqual([production, sandbox].sort());
  });

  it('setActivityChannel sets and forgets the channel of one environment, seen on both handles, in every read of the activity', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const [first, second] = [channelId(), channelId()];
    expect(await storage.setActivityChannel(account.id, activity.slug, 'sandbox', first)).toBe(true);
    expect(await peer.getActivity(account.id, activity.slug)).toEqual({ ...activity, channels: { production: null, sandbox: first } });
    expect((await peer.listActivities(account.id)).map((read) => read.channels)).toEqual([{ production: null, sandbox: first }]);
    // Set again: the same id is still this activity's.
    expect(await peer.setActivityChannel(account.id, activity.slug, 'sandbox', first)).toBe(true);
    // A new channel replaces the old one, which is held no more.
    expect(await peer.setActivityChannel(account.id, activity.slug, 'sandbox', second)).toBe(true);
    expect((await storage.getActivity(account.id, activity.slug))?.channels).toEqual({ production: null, sandbox: second });
    expect((await heldBy(storage, account.id)).map((held) => held.channelId)).toEqual([second]);
    // Updates carry the channels too.
    const started = written(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(1), now: T0 }));
    expect(started.activity.channels).toEqual({ production: null, sandbox: second });
    expect(await storage.setActivityChannel(account.id, activity.slug, 'sandbox', null)).toBe(true);
    expect((await peer.getActivity(account.id, activity.slug))?.channels).toEqual(NO_CHANNELS);
    expect(await heldBy(peer, account.id)).toEqual([]);
    // Forgetting what is not there is done all the same.
    expect(await peer.setActivityChannel(account.id, activity.slug, 'production', null)).toBe(true);
  });

  it('setActivityChannel is false and writes nothing for an activity that does not exist', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const stranger = await newAccount(storage);
    const id = channelId();
    expect(await storage.setActivityChannel(account.id, uid('missing'), 'production', id)).toBe(false);
    expect(await storage.setActivityChannel(stranger.id, activity.slug, 'production', id)).toBe(false);
    expect(await storage.setActivityChannel(account.id, activity.slug.toUpperCase(), 'production', id)).toBe(false);
    expect((await storage.listActivityChannels()).filter((held) => held.channelId === id)).toEqual([]);
    // The id was never taken: the activity can hold it.
    expect(await storage.setActivityChannel(account.id, activity.slug, 'production', id)).toBe(true);
  });

  it('with ifChannel, a channel is set or forgotten only while the stored one is that id (null: none)', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const [first, second, third] = [channelId(), channelId(), channelId()];
    expect(await storage.setActivityChannel(account.id, activity.slug, 'production', first, { ifChannel: null })).toBe(true);
    // Another instance created one too: its write finds one stored and changes nothing.
    expect(await peer.setActivityChannel(account.id, activity.slug, 'production', second, { ifChannel: null })).toBe(false);
    expect(await peer.setActivityChannel(account.id, activity.slug, 'production', second, { ifChannel: third })).toBe(false);
    expect((await storage.getActivity(account.id, activity.slug))?.channels.production).toBe(first);
    // A refused id was not taken: another activity may hold it.
    const other = await newActivity(storage, account.id);
    expect(await storage.setActivityChannel(account.id, other.slug, 'production', second)).toBe(true);
    expect(await peer.setActivityChannel(account.id, activity.slug, 'production', third, { ifChannel: first })).toBe(true);
    // The condition is on this environment's channel only.
    expect(await storage.setActivityChannel(account.id, activity.slug, 'sandbox', first, { ifChannel: third })).toBe(false);
    expect(await storage.setActivityChannel(account.id, activity.slug, 'sandbox', first, { ifChannel: null })).toBe(true);
    // A forget with a stale id keeps the newer channel.
    expect(await peer.setActivityChannel(account.id, activity.slug, 'production', null, { ifChannel: first })).toBe(false);
    expect((await storage.getActivity(account.id, activity.slug))?.channels).toEqual({ production: third, sandbox: first });
    expect(await peer.setActivityChannel(account.id, activity.slug, 'production', null, { ifChannel: third })).toBe(true);
    expect((await storage.getActivity(account.id, activity.slug))?.channels).toEqual({ production: null, sandbox: first });
  });

  it('a channel id belongs to one activity and environment: refused for another activity, account or environment until it is forgotten', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const holder = await newActivity(storage, account.id);
    const sibling = await newActivity(storage, account.id);
    const stranger = await newAccount(storage);
    const foreign = await newActivity(storage, stranger.id);
    const id = channelId();
    expect(await storage.setActivityChannel(account.id, holder.slug, 'production', id)).toBe(true);
    expect(await peer.setActivityChannel(account.id, sibling.slug, 'production', id)).toBe(false);
    expect(await peer.setActivityChannel(account.id, sibling.slug, 'sandbox', id)).toBe(false);
    expect(await peer.setActivityChannel(stranger.id, foreign.slug, 'production', id)).toBe(false);
    expect(await storage.setActivityChannel(account.id, holder.slug, 'sandbox', id)).toBe(false);
    for (const handle of [storage, peer]) {
      expect((await handle.getActivity(account.id, holder.slug))?.channels).toEqual({ production: id, sandbox: null });
      expect((await handle.getActivity(account.id, sibling.slug))?.channels).toEqual(NO_CHANNELS);
      expect((await handle.getActivity(stranger.id, foreign.slug))?.channels).toEqual(NO_CHANNELS);
    }
    // Replaced by another channel, the id is free again.
    expect(await storage.setActivityChannel(account.id, holder.slug, 'production', channelId())).toBe(true);
    expect(await peer.setActivityChannel(stranger.id, foreign.slug, 'sandbox', id)).toBe(true);
    expect(await storage.setActivityChannel(account.id, holder.slug, 'production', id)).toBe(false);
  });

  it('deleteActivity and deleteAccount forget the channels: they are listed no more and their ids are free', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const other = await newAccount(storage);
    const doomed = await newActivity(storage, other.id);
    const taker = await newActivity(storage, (await newAccount(storage)).id);
    const [production, sandbox, elsewhere] = [channelId(), channelId(), channelId()];
    await storage.setActivityChannel(account.id, activity.slug, 'production', production);
    await storage.setActivityChannel(account.id, activity.slug, 'sandbox', sandbox);
    await storage.setActivityChannel(other.id, doomed.slug, 'production', elsewhere);

    expect(await peer.deleteActivity(account.id, activity.slug)).toBe(true);
    expect(await heldBy(storage, account.id)).toEqual([]);
    expect(await storage.setActivityChannel(taker.accountId, taker.slug, 'production', production)).toBe(true);
    expect(await storage.setActivityChannel(taker.accountId, taker.slug, 'sandbox', sandbox)).toBe(true);
    // The same slug again starts without channels.
    await storage.putActivity({ accountId: account.id, slug: activity.slug, template: activity.template, dismissalDelayS: 30 });
    expect((await peer.getActivity(account.id, activity.slug))?.channels).toEqual(NO_CHANNELS);

    expect(await peer.deleteAccount(other.id)).toBe(true);
    expect(await heldBy(storage, other.id)).toEqual([]);
    expect(await storage.setActivityChannel(account.id, activity.slug, 'production', elsewhere)).toBe(true);
  });

  it("listActivityChannels lists every held channel with its activity's liveness, last update and dismissal delay", async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const idle = await newActivity(storage, account.id);
    const slug = `${idle.slug}-live`;
    await storage.putActivity({ accountId: account.id, slug, template: 'progress', dismissalDelayS: 90, delivery: 'broadcast' });
    await newActivity(storage, account.id); // holds none: not listed
    const [a, b, c] = [channelId(), channelId(), channelId()];
    await storage.setActivityChannel(account.id, idle.slug, 'sandbox', a);
    await storage.setActivityChannel(account.id, slug, 'production', b);
    await storage.setActivityChannel(account.id, slug, 'sandbox', c);
    written(await peer.applyActivityUpdate(account.id, slug, { state: 'ONGOING', content: content(1), now: T0 + 5 }));
    const expected: HeldChannel[] = [
      { accountId: account.id, slug: idle.slug, environment: 'sandbox', channelId: a, live: false, updatedAt: null, dismissalDelayS: 30 },
      { accountId: account.id, slug, environment: 'production', channelId: b, live: true, updatedAt: iso(T0 + 5), dismissalDelayS: 90 },
      { accountId: account.id, slug, environment: 'sandbox', channelId: c, live: true, updatedAt: iso(T0 + 5), dismissalDelayS: 90 },
    ];
    for (const handle of [storage, peer]) expect(await heldBy(handle, account.id)).toEqual(expected);
    // Ended: still held (the runner deletes it after the dismissal delay), no longer live.
    written(await storage.applyActivityUpdate(account.id, slug, { state: 'IDLE', content: content(2), now: T0 + 9 }));
    expect((await heldBy(peer, account.id)).filter((held) => held.slug === slug)).toEqual(
      expected.slice(1).map((held) => ({ ...held, live: false, updatedAt: iso(T0 + 9) })),
    );
  });

  it('records are copies: changing a read activity or listing changes nothing stored', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const id = channelId();
    await storage.setActivityChannel(account.id, activity.slug, 'production', id);
    const read = (await storage.getActivity(account.id, activity.slug))!;
    read.channels.production = 'scribbled';
    const listed = (await storage.listActivities(account.id))[0]!;
    listed.channels.sandbox = 'scribbled';
    const started = written(await storage.applyActivityUpdate(account.id, activity.slug, { state: 'ONGOING', content: content(1), now: T0 }));
    started.activity.channels.production = 'scribbled';
    (await heldBy(storage, account.id))[0]!.channelId = 'scribbled';
    expect((await storage.getActivity(account.id, activity.slug))?.channels).toEqual({ production: id, sandbox: null });
    expect((await heldBy(storage, account.id)).map((held) => held.channelId)).toEqual([id]);
  });

  it('listChannelFollowers lists the devices of the account that follow channels in the environments asked, in code-unit order', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const base = uid('dev');
    // Code-unit order, not locale order (case, accents, a surrogate pair).
    const suffixes = ['b', 'B', 'a', 'é', '\u{1F600}', 'Z', '0', '_'];
    const production: string[] = [];
    const sandbox: string[] = [];
    for (const [i, suffix] of suffixes.entries()) {
      const environment = i % 2 === 0 ? 'production' : 'sandbox';
      const device = await registered(storage, account.id, environment, true, `${base}-${suffix}`);
      (environment === 'production' ? production : sandbox).push(device.id);
    }
    // Not followers: no channels flag, no registration, another account's follower.
    await registered(storage, account.id, 'production', false, `${base}-not-following`);
    await newDevice(storage, account.id, `${base}-unregistered`);
    await registered(storage, (await newAccount(storage)).id, 'production', true);

    for (const handle of [storage, peer]) {
      expect(await handle.listChannelFollowers(account.id, ['production'])).toEqual(production.sort(byCodeUnit));
      expect(await handle.listChannelFollowers(account.id, ['sandbox'])).toEqual(sandbox.sort(byCodeUnit));
      expect(await handle.listChannelFollowers(account.id, ['sandbox', 'production'])).toEqual([...production, ...sandbox].sort(byCodeUnit));
      expect(await handle.listChannelFollowers(account.id, [])).toEqual([]);
      expect(await handle.listChannelFollowers(uid('acct'), ['production', 'sandbox'])).toEqual([]);
    }
    // A listing is a copy.
    const listed = await storage.listChannelFollowers(account.id, ['production']);
    listed.reverse().push('scribbled');
    expect(await storage.listChannelFollowers(account.id, ['production'])).toEqual(production.sort(byCodeUnit));
  });

  it('a device stops following when it says so, moves environment, loses its registration, is removed, rotates its token or moves account', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const follower = async () => (await registered(storage, account.id, 'production', true)).id;
    const [stops, switches, unregisters, removed, rotates, moves, stays] = [
      await follower(),
      await follower(),
      await follower(),
      await follower(),
      await follower(),
      await follower(),
      await follower(),
    ];
    const all = [stops, switches, unregisters, removed, rotates, moves, stays].sort(byCodeUnit);
    expect(await peer.listChannelFollowers(account.id, ['production'])).toEqual(all);

    expect(await peer.setApnsRegistration(stops, { environment: 'production', channels: false })).toBe(true);
    expect(await peer.setApnsRegistration(switches, { environment: 'sandbox' })).toBe(true);
    expect(await peer.removeApnsRegistration(unregisters)).toBe(true);
    expect(await peer.deleteDevice(removed)).toBe(true);
    await peer.upsertDevice({ id: rotates, accountId: account.id, tokenHash: randomHash() });
    await peer.upsertDevice({ id: moves, accountId: (await newAccount(storage)).id, tokenHash: randomHash() });

    for (const handle of [storage, peer]) {
      expect(await handle.listChannelFollowers(account.id, ['production'])).toEqual([stays]);
      // Its flag went with it to the other environment.
      expect(await handle.listChannelFollowers(account.id, ['sandbox'])).toEqual([switches]);
      expect(await handle.listChannelFollowers(account.id, ['production', 'sandbox'])).toEqual([stays, switches].sort(byCodeUnit));
    }
    // Registered again (the rotated app, the moved device in its new account): not following until it says so.
    expect(await storage.setApnsRegistration(rotates, { environment: 'production', widgets: randomHash() })).toBe(true);
    expect(await peer.listChannelFollowers(account.id, ['production'])).toEqual([stays]);
    expect(await storage.setApnsRegistration(rotates, { environment: 'production', channels: true })).toBe(true);
    expect(await peer.listChannelFollowers(account.id, ['production'])).toEqual([rotates, stays].sort(byCodeUnit));
    // With its account, every follower goes.
    expect(await storage.deleteAccount(account.id)).toBe(true);
    expect(await peer.listChannelFollowers(account.id, ['production', 'sandbox'])).toEqual([]);
  });

  it('the registration keeps its channels flag when a write leaves it out; a new registration starts without it', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage);
    const device = await newDevice(storage, account.id);
    const [start, widgets] = [randomHash(), randomHash()];
    expect(await storage.setApnsRegistration(device.id, { environment: 'sandbox', pushToStart: start })).toBe(true);
    expect(await peer.getApnsRegistration(device.id)).toEqual({ environment: 'sandbox', pushToStart: start, widgets: null, channels: false });
    expect(await peer.setApnsRegistration(device.id, { environment: 'sandbox', channels: true })).toBe(true);
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'sandbox', pushToStart: start, widgets: null, channels: true });
    expect(await storage.setApnsRegistration(device.id, { environment: 'production', widgets })).toBe(true);
    expect(await peer.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: start, widgets, channels: true });
    expect(await peer.setApnsRegistration(device.id, { environment: 'production', channels: false })).toBe(true);
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: start, widgets, channels: false });
    // Removed and registered anew: the flag does not come back.
    await storage.setApnsRegistration(device.id, { environment: 'production', channels: true });
    expect(await storage.removeApnsRegistration(device.id)).toBe(true);
    expect(await peer.setApnsRegistration(device.id, { environment: 'production', widgets })).toBe(true);
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: null, widgets, channels: false });
    // A token removed by an APNs answer leaves the flag as it is.
    await storage.setApnsRegistration(device.id, { environment: 'production', channels: true });
    await peer.removeApnsToken(device.id, widgets);
    expect(await storage.getApnsRegistration(device.id)).toEqual({ environment: 'production', pushToStart: null, widgets: null, channels: true });
    // With ifDevice, as every registration write: a stale identity writes no flag.
    const stale = { ifDevice: { accountId: device.accountId, tokenHash: randomHash() } };
    expect(await peer.setApnsRegistration(device.id, { environment: 'production', channels: false }, stale)).toBe(false);
    expect((await storage.getApnsRegistration(device.id))?.channels).toBe(true);
  });

  it('concurrent compare-and-sets of one activity from two instances: exactly one wins, and only its id is held', async () => {
    const handles = get();
    const { storage } = handles;
    const account = await newAccount(storage);
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const activity = await newActivity(storage, account.id);
      const environment = round % 2 === 0 ? 'production' : 'sandbox';
      // Every instance that saw the activity start without a channel created one.
      const ids = Array.from({ length: RACERS }, channelId);
      const results = await Promise.all(
        ids.map((id, i) => either(handles, i).setActivityChannel(account.id, activity.slug, environment, id, { ifChannel: null })),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = ids[results.indexOf(true)]!;
      for (const handle of [handles.storage, handles.peer]) {
        expect((await handle.getActivity(account.id, activity.slug))?.channels[environment]).toBe(winner);
        const held = (await heldBy(handle, account.id)).filter((channel) => channel.slug === activity.slug);
        expect(held.map((channel) => channel.channelId)).toEqual([winner]);
      }
      // The losers' ids were never taken.
      const loser = ids[(results.indexOf(true) + 1) % RACERS]!;
      expect(await storage.setActivityChannel(account.id, activity.slug, environment === 'production' ? 'sandbox' : 'production', loser)).toBe(true);
    }
  });

  it('concurrent claims of one channel id by several activities from two instances: exactly one holds it', async () => {
    const handles = get();
    const { storage } = handles;
    const account = await newAccount(storage);
    const activities = [];
    for (let i = 0; i < RACERS; i++) activities.push(await newActivity(storage, account.id));
    for (let round = 0; round < RACE_ROUNDS; round++) {
      const id = channelId();
      const results = await Promise.all(
        activities.map((activity, i) => either(handles, i + round).setActivityChannel(account.id, activity.slug, i % 2 === 0 ? 'production' : 'sandbox', id)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const holders = (await heldBy(handles.peer, account.id)).filter((channel) => channel.channelId === id);
      const winner = results.indexOf(true);
      expect(holders).toMatchObject([{ slug: activities[winner]!.slug, environment: winner % 2 === 0 ? 'production' : 'sandbox' }]);
    }
  });

  it('values no store can hold: keys name nothing, a channel id is refused with a TypeError when it would be written', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const activity = await newActivity(storage, account.id);
    const id = channelId();
    await storage.setActivityChannel(account.id, activity.slug, 'production', id);
    for (const bad of ['a\u0000b', 'a\uD800b']) {
      expect(await storage.setActivityChannel(account.id, bad, 'production', channelId())).toBe(false);
      expect(await storage.setActivityChannel(bad, activity.slug, 'production', channelId())).toBe(false);
      // No stored channel is such an id: the condition fails.
      expect(await storage.setActivityChannel(account.id, activity.slug, 'production', null, { ifChannel: bad })).toBe(false);
      await expect(storage.setActivityChannel(account.id, activity.slug, 'production', bad)).rejects.toThrow(TypeError);
      // For an activity that does not exist, as the store answers, without an error.
      expect(await storage.setActivityChannel(account.id, uid('missing'), 'production', bad)).toBe(false);
      expect(await storage.listChannelFollowers(bad, ['production', 'sandbox'])).toEqual([]);
    }
    expect((await storage.getActivity(account.id, activity.slug))?.channels).toEqual({ production: id, sandbox: null });
  });
}
