import { createApnsTransport } from '@tilecast/transport-apns';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_ID, KEY_ID, rig, T0, TEAM_ID, transportTo, until, type Rig } from './support.js';

/** Stores `channelId` as the sandbox channel of acme/`slug`, with that activity's state. */
async function held(r: Rig, slug: string, state: { live: boolean; updatedAt?: string | null; dismissalDelayS?: number }): Promise<string> {
  const channelId = r.double.addChannel();
  r.registry.setActivity('acme', slug, state);
  expect(await r.registry.setActivityChannel('acme', slug, 'sandbox', channelId)).toBe(true);
  return channelId;
}

const ago = (ms: number) => new Date(T0 - ms).toISOString();

describe('transport-apns: the start-up channel sweep (docs/contract/broadcast-channels.md#broadcast-orphan-cleanup)', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('deletes the channels no activity holds and those of ended, dismissed activities; keeps the rest', async () => {
    r = await rig();
    const live = await held(r, 'build', { live: true, updatedAt: ago(3_600_000), dismissalDelayS: 30 });
    const dismissed = await held(r, 'deploy', { live: false, updatedAt: ago(31_000), dismissalDelayS: 30 });
    const showing = await held(r, 'release', { live: false, updatedAt: ago(29_000), dismissalDelayS: 30 });
    const orphans = [r.double.addChannel(), r.double.addChannel(0)];

    const report = await r.transport.sweepChannels();

    expect(report).toEqual({ listed: 5, orphans: 2, ended: 1, deleted: 3, left: 0 });
    expect(r.double.channels().map((c) => c.id)).toEqual([live, showing]);
    expect((await r.registry.heldChannels()).map((h) => [h.slug, h.channelId])).toEqual([
      ['build', live],
      ['release', showing],
    ]);
    // Both environments go to the one double here: it is listed once.
    expect(r.double.channelRequests.filter((q) => q.method === 'GET').map((q) => [q.path, q.status])).toEqual([
      ['/1/apps/com.example.tilecast/all-channels', 200],
    ]);
    expect(r.double.channelRequests.filter((q) => q.method === 'DELETE').map((q) => q.channelId)).toEqual(expect.arrayContaining([dismissed, ...orphans]));
    expect(r.transport.counters()).toMatchObject({ orphansDeleted: 3, channelsDeleted: 0 });
    expect(r.logs.filter((l) => l.message.startsWith('apns: channel sweep'))).toEqual([
      { level: 'info', message: 'apns: channel sweep done', fields: { listed: 5, orphans: 2, ended: 1, deleted: 3, left: 0 } },
    ]);
  });

  it('is bounded: at most channelSweepLimit deletions a sweep, the rest left for the next', async () => {
    r = await rig({ channelSweepLimit: 2 });
    for (let i = 0; i < 3; i++) r.double.addChannel();
    expect(await r.transport.sweepChannels()).toEqual({ listed: 3, orphans: 3, ended: 0, deleted: 2, left: 1 });
    expect(r.double.channels()).toHaveLength(1);
    expect(await r.transport.sweepChannels()).toEqual({ listed: 1, orphans: 1, ended: 0, deleted: 1, left: 0 });
    expect(r.double.channels()).toEqual([]);
  });

  it('FeatureNotEnabled: one info line, no error, nothing deleted', async () => {
    r = await rig({}, { broadcast: false });
    expect(await r.transport.sweepChannels()).toEqual({ listed: 0, orphans: 0, ended: 0, deleted: 0, left: 0 });
    expect(r.logs.map((l) => [l.level, l.message])).toEqual([
      ['info', 'apns: channel sweep skipped: broadcast is not enabled for this app (FeatureNotEnabled)'],
    ]);
  });

  it('a listing refused otherwise is logged as a warning and the sweep goes on', async () => {
    r = await rig();
    r.double.answer({ on: 'channels', answer: { status: 403, reason: 'Forbidden' } });
    expect(await r.transport.sweepChannels()).toEqual({ listed: 0, orphans: 0, ended: 0, deleted: 0, left: 0 });
    expect(r.logs.map((l) => [l.level, l.message, l.fields?.reason])).toEqual([
      ['warn', 'apns: channel sweep could not list the channels', 'Forbidden'],
      ['info', 'apns: channel sweep done', undefined],
    ]);
  });

  it('runs in the background when the transport is made, unless channelSweep is false', async () => {
    r = await rig();
    const orphan = r.double.addChannel();
    const quiet = transportTo(r.double, r.registry, r.signingKey, { clock: r.clock, connectionThread: 'main', channelSweep: false });
    // The default, as an app makes it (the rig's transports turn it off).
    const sweeping = createApnsTransport({
      teamId: TEAM_ID,
      keyId: KEY_ID,
      bundleId: BUNDLE_ID,
      signingKey: r.signingKey,
      registry: r.registry,
      origin: r.double.origin,
      ca: r.double.ca,
      clock: r.clock,
      connectionThread: 'main',
    });
    try {
      await until(() => r.double.channels().length === 0, 'the orphan to be deleted');
      expect(r.double.channelRequests.filter((q) => q.method === 'DELETE').map((q) => q.channelId)).toEqual([orphan]);
      expect(quiet.counters().orphansDeleted).toBe(0);
      await until(() => sweeping.counters().orphansDeleted === 1, 'the deletion to be counted');
    } finally {
      await Promise.all([quiet.close(), sweeping.close()]);
    }
  });
});
