import type { ActivityPush, ApnsEnvironment, BroadcastResult } from '@tilecast/core';
import { startApnsDouble } from '@tilecast/transport-apns/test-double';
import { afterEach, describe, expect, it } from 'vitest';
import { activity, BUNDLE_ID, flush, KEY_ID, rig, T0, TEAM_ID, transportTo, until, type Rig } from './support.js';

const BOTH: ApnsEnvironment[] = ['production', 'sandbox'];

/** `broadcastActivity` as the core's delivery runner calls it for a job of acme/build. */
function broadcast(
  r: Rig,
  phase: ActivityPush['phase'],
  at: number,
  {
    channels,
    environments = ['sandbox'],
    frequentUpdates = false,
    ...overrides
  }: Partial<ActivityPush> & { environments?: ApnsEnvironment[]; frequentUpdates?: boolean } = {},
): Promise<BroadcastResult> {
  return r.transport.broadcastActivity({ push: activity(phase, at, { channels, ...overrides }), frequentUpdates, environments });
}

/** A rig whose registry knows acme/build as started, its dismissal delay 30 s (the pushes' `dismissal_delay_s`). */
async function started(...args: Parameters<typeof rig>): Promise<Rig> {
  const r = await rig(...args);
  r.registry.setActivity('acme', 'build', { live: true, dismissalDelayS: 30 });
  return r;
}

const errors = (r: Rig) => r.logs.filter((line) => line.level === 'error');

describe('transport-apns: channels made at a start (docs/contract/broadcast-channels.md#broadcast-channel-on-start)', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('makes one channel per environment, policy 1, stores each, covers nothing', async () => {
    r = await started();
    const result = await broadcast(r, 'start', T0, { environments: BOTH });
    expect(result.covered).toEqual([]);
    const { production, sandbox } = result.channels;
    expect(production).toEqual(expect.any(String));
    expect(sandbox).toEqual(expect.any(String));
    expect(production).not.toBe(sandbox);
    expect(r.double.channels()).toEqual(
      expect.arrayContaining([
        { id: production, policy: 1 },
        { id: sandbox, policy: 1 },
      ]),
    );
    expect(r.double.channelRequests.map((q) => [q.method, q.path, q.body, q.status])).toEqual([
      ['POST', `/1/apps/${BUNDLE_ID}/channels`, { 'message-storage-policy': 1, 'push-type': 'LiveActivity' }, 201],
      ['POST', `/1/apps/${BUNDLE_ID}/channels`, { 'message-storage-policy': 1, 'push-type': 'LiveActivity' }, 201],
    ]);
    expect(r.double.channelRequests[0]!.jwt).toEqual({ header: { alg: 'ES256', kid: KEY_ID }, claims: { iss: TEAM_ID, iat: T0 / 1000 } });
    const held = await r.registry.heldChannels();
    expect(held.map((h) => [h.environment, h.channelId]).sort()).toEqual([
      ['production', production],
      ['sandbox', sandbox],
    ]);
    expect(r.transport.counters()).toMatchObject({ channelsCreated: 2, channelsDeleted: 0 });
    expect(r.double.broadcasts).toEqual([]);
  });

  it('frequent updates: policy 0, and its broadcasts carry apns-expiration 0 (docs/contract/broadcast-channels.md#broadcast-storage-policy)', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0, { frequentUpdates: true });
    expect(r.double.channels()).toEqual([{ id: channels.sandbox, policy: 0 }]);
    const result = await broadcast(r, 'update', T0 + 1000, { channels, frequentUpdates: true });
    expect(result.covered).toEqual(['sandbox']);
    expect(r.double.broadcasts.map((b) => [b.headers['apns-expiration'], b.status])).toEqual([['0', 200]]);
  });

  it('a start replaces the stored channel with a new one and deletes the old one: ids are never reused', async () => {
    r = await started();
    const first = (await broadcast(r, 'start', T0)).channels.sandbox!;
    const second = await broadcast(r, 'start', T0 + 60_000, { channels: { production: null, sandbox: first } });
    expect(second.channels.sandbox).toEqual(expect.any(String));
    expect(second.channels.sandbox).not.toBe(first);
    expect(r.double.channels().map((c) => c.id)).toEqual([second.channels.sandbox]);
    expect((await r.registry.heldChannels()).map((h) => h.channelId)).toEqual([second.channels.sandbox]);
    expect(r.double.channelRequests.map((q) => [q.method, q.channelId, q.status])).toEqual([
      ['POST', first, 201],
      ['POST', second.channels.sandbox, 201],
      ['DELETE', first, 204],
    ]);
    expect(r.transport.counters()).toMatchObject({ channelsCreated: 2, channelsDeleted: 1 });
  });

  it("two starts at once: the one that stores second keeps the first one's channel and deletes its own, whichever was asked first", async () => {
    r = await started();
    // The registry holds the first store of a channel until told: the start asked first stores last.
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let holding = false;
    const registry = new Proxy(r.registry, {
      get(target, name, receiver) {
        if (name !== 'setActivityChannel') return Reflect.get(target, name, receiver);
        return async (...args: Parameters<typeof target.setActivityChannel>) => {
          if (!holding && args[3] !== null) {
            holding = true;
            await held;
          }
          return target.setActivityChannel(...args);
        };
      },
    });
    await r.transport.close();
    r.transport = transportTo(r.double, registry, r.signingKey, { clock: r.clock, connectionThread: 'main', logger: loggerOf(r) });
    const first = broadcast(r, 'start', T0); // a start an update superseded while it runs
    await until(() => holding, 'the first start to store');
    const second = await broadcast(r, 'start', T0); // the update's job, the run's start now
    release();
    const firstResult = await first;
    expect(firstResult.channels.sandbox).toBe(second.channels.sandbox);
    expect(r.double.channels().map((c) => c.id)).toEqual([second.channels.sandbox]);
    expect((await r.registry.heldChannels()).map((h) => h.channelId)).toEqual([second.channels.sandbox]);
    expect(r.double.channelRequests.map((q) => [q.method, q.status])).toEqual([
      ['POST', 201],
      ['POST', 201],
      ['DELETE', 204],
    ]);
  });

  it('an environment not asked for keeps its stored channel', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0, { environments: BOTH });
    const again = await broadcast(r, 'start', T0 + 1000, { channels, environments: ['sandbox'] });
    expect(again.channels.production).toBe(channels.production);
    expect(again.channels.sandbox).not.toBe(channels.sandbox);
  });

  it('a channel made for an activity that is gone is deleted at once, and none is named', async () => {
    r = await started();
    r.registry.removeActivity('acme', 'build');
    const result = await broadcast(r, 'start', T0);
    expect(result.channels).toEqual({ production: null, sandbox: null });
    expect(r.double.channels()).toEqual([]);
    expect(r.double.channelRequests.map((q) => [q.method, q.status])).toEqual([
      ['POST', 201],
      ['DELETE', 204],
    ]);
  });

  it('manageOrigin replaces the management hosts; broadcasts still go to the push origin', async () => {
    r = await started();
    const manager = await startApnsDouble({ teamId: TEAM_ID, keyId: KEY_ID, bundleId: BUNDLE_ID, publicKey: r.signingKey, clock: r.clock });
    try {
      await r.transport.close();
      r.transport = transportTo(r.double, r.registry, r.signingKey, {
        clock: r.clock,
        manageOrigin: manager.origin,
        connectionThread: 'main',
        ca: [r.double.ca, manager.ca],
      });
      const { channels } = await broadcast(r, 'start', T0);
      expect(manager.channelRequests.map((q) => [q.method, q.status])).toEqual([['POST', 201]]);
      expect(manager.channels().map((c) => c.id)).toEqual([channels.sandbox]);
      expect(r.double.channelRequests).toEqual([]);
      // The push double never made that channel: it answers ChannelNotRegistered, a new one is made on the manager, refused again.
      const result = await broadcast(r, 'update', T0 + 1000, { channels });
      expect(result.covered).toEqual([]);
      expect(r.double.broadcasts.map((b) => b.reason)).toEqual(['ChannelNotRegistered', 'ChannelNotRegistered']);
      expect(manager.broadcasts).toEqual([]);
      expect(manager.channelRequests.map((q) => q.method)).toEqual(['POST', 'POST']);
    } finally {
      await manager.close();
    }
  });
});

describe('transport-apns: broadcasts of updates and ends (docs/contract/broadcast-channels.md#broadcast-update-end)', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('one POST /4/broadcasts/apps/<bundle> per environment, with the per-token payload and headers', async () => {
    r = await started({ updatePriority: 5 });
    const { channels } = await broadcast(r, 'start', T0, { environments: BOTH });
    const result = await broadcast(r, 'update', T0 + 2500, { channels, environments: BOTH });
    expect([...result.covered].sort()).toEqual(BOTH);
    expect(result.channels).toEqual(channels);
    expect(r.double.broadcasts).toHaveLength(2);
    expect(r.double.broadcasts.map((b) => b.channelId).sort()).toEqual([channels.production, channels.sandbox].sort());
    for (const sent of r.double.broadcasts) {
      expect(sent).toMatchObject({ path: `/4/broadcasts/apps/${BUNDLE_ID}`, status: 200, reason: null });
      expect(sent.headers).toEqual({
        'apns-channel-id': sent.channelId,
        'apns-push-type': 'liveactivity',
        'apns-priority': '5',
        'apns-expiration': String(T0 / 1000 + 3600),
      });
      expect(sent.jwt?.claims).toEqual({ iss: TEAM_ID, iat: T0 / 1000 });
      expect(sent.payload).toEqual({
        aps: { timestamp: T0 / 1000 + 2, event: 'update', 'content-state': { state: 'ONGOING', content: { template: 'progress', progress: 0.5 } } },
      });
    }
    // Nothing went per token.
    expect(r.double.received).toEqual([]);
    expect(r.transport.counters()).toMatchObject({ broadcastsSent: 2, broadcastsFailed: 0 });
  });

  it('an end: priority 10 whatever updatePriority, and its dismissal-date', async () => {
    r = await started({ updatePriority: 5 });
    const { channels } = await broadcast(r, 'start', T0);
    const result = await broadcast(r, 'end', T0 + 3000, { channels, dismissal_delay_s: 29.2 });
    expect(result.covered).toEqual(['sandbox']);
    const [sent] = r.double.broadcasts;
    expect(sent!.headers['apns-priority']).toBe('10');
    expect(sent!.payload).toEqual({
      aps: {
        timestamp: T0 / 1000 + 3,
        event: 'end',
        'content-state': { state: 'IDLE', content: { template: 'progress', progress: 0.5 } },
        'dismissal-date': T0 / 1000 + 33,
      },
    });
  });

  it('an environment without a stored channel is not covered and nothing is sent there', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    const result = await broadcast(r, 'update', T0 + 1000, { channels, environments: BOTH });
    expect(result.covered).toEqual(['sandbox']);
    expect(r.double.broadcasts).toHaveLength(1);
  });

  it.each([
    [503, 'ServiceUnavailable', undefined],
    [429, 'TooManyRequests', '2'],
  ])('%i is retried (docs/contract/apns.md#apns-retry), then covered', async (status, reason, retryAfter) => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    r.double.answer({ on: 'broadcast', answer: { status, reason, retryAfter } });
    const sending = broadcast(r, 'update', T0 + 1000, { channels });
    await until(() => r.transport.counters().retried === 1, 'the retry to be planned');
    r.clock.advance(retryAfter === undefined ? 749 : 2_249);
    await flush();
    expect(r.double.broadcasts).toHaveLength(1);
    r.clock.advance(1);
    expect((await sending).covered).toEqual(['sandbox']);
    expect(r.double.broadcasts.map((b) => b.status)).toEqual([status, 200]);
    expect(r.transport.counters()).toMatchObject({ broadcastsSent: 1, broadcastsFailed: 0, retried: 1 });
  });

  it('retries used up: not covered, counted and logged, never rejected', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    r.double.answer({ on: 'broadcast', answer: { status: 500, reason: 'InternalServerError' }, times: 3 });
    const sending = broadcast(r, 'update', T0 + 1000, { channels });
    await until(() => r.transport.counters().retried === 1, 'the first retry');
    r.clock.advance(750);
    await until(() => r.transport.counters().retried === 2, 'the second retry');
    r.clock.advance(1500);
    expect((await sending).covered).toEqual([]);
    expect(r.transport.counters()).toMatchObject({ broadcastsSent: 0, broadcastsFailed: 1 });
    expect(r.logs.some((l) => l.level === 'warn' && l.message.startsWith('apns: broadcast not sent') && l.fields?.reason === 'InternalServerError')).toBe(true);
  });

  it('a registry that fails: nothing covered, logged, never rejected', async () => {
    r = await started();
    const failing = { ...r.registry, setActivityChannel: () => Promise.reject(new Error('store down')) };
    await r.transport.close();
    r.transport = transportTo(r.double, failing, r.signingKey, { clock: r.clock, logger: loggerOf(r), connectionThread: 'main' });
    const result = await broadcast(r, 'start', T0);
    expect(result).toEqual({ covered: [], channels: { production: null, sandbox: null } });
    expect(errors(r).map((l) => [l.message, l.fields?.error])).toEqual([['apns: broadcast failed', 'Error: store down']]);
  });
});

describe('transport-apns: broadcast answers (docs/contract/broadcast-channels.md#broadcast-answers)', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('ChannelNotRegistered: a new channel is made, stored in place of the old one, and the broadcast sent again once', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    const dead = channels.sandbox!;
    r.double.removeChannel(dead);
    const result = await broadcast(r, 'update', T0 + 1000, { channels });
    const fresh = result.channels.sandbox!;
    expect(fresh).toEqual(expect.any(String));
    expect(fresh).not.toBe(dead);
    expect(result.covered).toEqual(['sandbox']);
    expect(r.double.broadcasts.map((b) => [b.channelId, b.status, b.reason])).toEqual([
      [dead, 400, 'ChannelNotRegistered'],
      [fresh, 200, null],
    ]);
    expect((await r.registry.heldChannels()).map((h) => h.channelId)).toEqual([fresh]);
    expect(r.transport.counters()).toMatchObject({ channelsCreated: 2, broadcastsSent: 1, broadcastsFailed: 0 });
  });

  it('BadChannelId: the same, from a malformed stored id', async () => {
    r = await started();
    await r.registry.setActivityChannel('acme', 'build', 'sandbox', 'not a channel!');
    const result = await broadcast(r, 'update', T0 + 1000, { channels: { production: null, sandbox: 'not a channel!' } });
    expect(r.double.broadcasts.map((b) => [b.status, b.reason])).toEqual([
      [400, 'BadChannelId'],
      [200, null],
    ]);
    expect(result.covered).toEqual(['sandbox']);
    expect((await r.registry.heldChannels()).map((h) => h.channelId)).toEqual([result.channels.sandbox]);
  });

  it('sent again once only: a second ChannelNotRegistered is a failure', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    r.double.answer({ on: 'broadcast', answer: { status: 400, reason: 'ChannelNotRegistered' }, times: 2 });
    const result = await broadcast(r, 'update', T0 + 1000, { channels });
    expect(result.covered).toEqual([]);
    expect(r.double.broadcasts).toHaveLength(2);
    expect(r.transport.counters()).toMatchObject({ channelsCreated: 2, broadcastsSent: 0, broadcastsFailed: 1 });
  });

  it('a dead channel that cannot be replaced is forgotten: later updates go per token', async () => {
    r = await started({}, { channelLimit: 1 });
    const { channels } = await broadcast(r, 'start', T0);
    r.double.removeChannel(channels.sandbox!);
    r.double.addChannel(); // the limit is reached by another channel meanwhile
    const result = await broadcast(r, 'update', T0 + 1000, { channels });
    expect(result).toEqual({ covered: [], channels: { production: null, sandbox: null } });
    expect(await r.registry.heldChannels()).toEqual([]);
    expect(r.transport.counters()).toMatchObject({ channelLimitHits: 1, broadcastsFailed: 1 });
  });

  it('FeatureNotEnabled at a creation turns broadcast off for the process with one error line', async () => {
    r = await started();
    const before = (await broadcast(r, 'start', T0)).channels;
    r.double.enableBroadcast(false);
    const again = await broadcast(r, 'start', T0 + 1000, { channels: before, environments: BOTH });
    // No channel: the stale one is forgotten, so that this start's devices get per-token updates.
    expect(again).toEqual({ covered: [], channels: { production: null, sandbox: null } });
    expect(await r.registry.heldChannels()).toEqual([]);
    const asked = r.double.channelRequests.length;
    r.double.enableBroadcast(true);
    // Off from now on: no more requests, whatever comes.
    expect((await broadcast(r, 'update', T0 + 2000, { channels: before })).covered).toEqual([]);
    expect((await broadcast(r, 'start', T0 + 3000)).channels).toEqual({ production: null, sandbox: null });
    expect(r.double.channelRequests).toHaveLength(asked);
    expect(r.double.broadcasts).toEqual([]);
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0]!.message).toContain('FeatureNotEnabled');
  });

  it('FeatureNotEnabled answered to a broadcast turns it off too', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    r.double.answer({ on: 'broadcast', answer: { status: 400, reason: 'FeatureNotEnabled' } });
    expect((await broadcast(r, 'update', T0 + 1000, { channels })).covered).toEqual([]);
    expect((await broadcast(r, 'update', T0 + 2000, { channels })).covered).toEqual([]);
    expect(r.double.broadcasts).toHaveLength(1);
    expect(errors(r)).toHaveLength(1);
  });
});

describe('transport-apns: the channel limit (docs/contract/broadcast-channels.md#broadcast-channel-limit)', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('CannotCreateChannelConfig: logged and counted, that activity gets no channel, nothing throws', async () => {
    r = await started({}, { channelLimit: 1 });
    r.registry.setActivity('acme', 'deploy', { live: true });
    const build = await broadcast(r, 'start', T0);
    expect(build.channels.sandbox).toEqual(expect.any(String));
    const deploy = await broadcast(r, 'start', T0, { slug: 'deploy' });
    expect(deploy).toEqual({ covered: [], channels: { production: null, sandbox: null } });
    expect(r.double.channelRequests.map((q) => [q.status, q.reason])).toEqual([
      [201, null],
      [400, 'CannotCreateChannelConfig'],
    ]);
    expect(r.transport.counters()).toMatchObject({ channelsCreated: 1, channelLimitHits: 1 });
    expect(r.logs.filter((l) => l.fields?.slug === 'deploy').map((l) => [l.level, l.message])).toEqual([
      ['warn', 'apns: channel limit reached (CannotCreateChannelConfig); the activity falls back to per-token pushes'],
    ]);
  });

  it('a start that cannot make a channel forgets and deletes the one of the previous run', async () => {
    r = await started({}, { channelLimit: 1 });
    const first = (await broadcast(r, 'start', T0)).channels;
    const again = await broadcast(r, 'start', T0 + 60_000, { channels: first });
    expect(again.channels).toEqual({ production: null, sandbox: null });
    expect(await r.registry.heldChannels()).toEqual([]);
    expect(r.double.channels()).toEqual([]);
  });
});

describe('transport-apns: channels deleted after the end (docs/contract/broadcast-channels.md#broadcast-channel-deletion)', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('once the end is sent and its dismissal delay has passed, the channel is deleted and forgotten', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    await broadcast(r, 'update', T0 + 5_000, { channels });
    expect(r.clock.pendingTimers()).toBe(0);
    await broadcast(r, 'end', T0 + 10_000, { channels, dismissal_delay_s: 30 });
    r.clock.advance(39_999);
    await flush();
    expect(r.double.channels()).toHaveLength(1);
    r.clock.advance(1);
    await until(() => r.double.channels().length === 0, 'the channel to be deleted');
    await until(() => r.transport.counters().channelsDeleted === 1, 'the deletion to be counted');
    await flush();
    expect(await r.registry.heldChannels()).toEqual([]);
    expect(r.double.channelRequests.at(-1)).toMatchObject({ method: 'DELETE', channelId: channels.sandbox, status: 204 });
  });

  it('a new start before then replaces it at once; the new channel stays', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    await broadcast(r, 'end', T0, { channels, dismissal_delay_s: 30 });
    const restarted = await broadcast(r, 'start', T0 + 1000, { channels });
    expect(r.clock.pendingTimers()).toBe(0);
    r.clock.advance(60_000);
    await flush();
    expect(r.double.channels().map((c) => c.id)).toEqual([restarted.channels.sandbox]);
    expect((await r.registry.heldChannels()).map((h) => h.channelId)).toEqual([restarted.channels.sandbox]);
  });

  it('close() forgets the planned deletions (the next start-up sweep deletes those channels)', async () => {
    r = await started();
    const { channels } = await broadcast(r, 'start', T0);
    await broadcast(r, 'end', T0, { channels });
    expect(r.clock.pendingTimers()).toBe(1);
    await r.transport.close();
    expect(r.clock.pendingTimers()).toBe(0);
  });
});

/** The rig's logger, for a transport made again in a test. */
function loggerOf(r: Rig) {
  return {
    info: (message: string, fields?: Record<string, unknown>) => void r.logs.push({ level: 'info', message, fields }),
    warn: (message: string, fields?: Record<string, unknown>) => void r.logs.push({ level: 'warn', message, fields }),
    error: (message: string, fields?: Record<string, unknown>) => void r.logs.push({ level: 'error', message, fields }),
  };
}
