/**
 * Broadcast channels end to end (issue 35, "Done when"): a publisher's `PATCH` to a
 * broadcast activity reaches the APNs test double as one correctly signed broadcast per
 * environment, with the devices registered over HTTP (`PUT /device/push`, with and without
 * `"channels": true`), on both stores; and every answer of docs/contract/broadcast-channels.md
 * has its test: the channel made again, broadcast turned off, the fall-back to per-token
 * pushes, the start-up sweep of orphans. The node:http adapter for all, Express for the
 * main walk too (what is checked lies below the adapters).
 */
import { generateKeyPairSync } from 'node:crypto';
import type { Logger } from '@tilecast/core';
import { apnsRegistryFrom, createApnsTransport, type ApnsTransport, type ApnsTransportOptions } from '@tilecast/transport-apns';
import { startApnsDouble, type ApnsDouble, type ApnsDoubleOptions, type ReceivedBroadcast, type ReceivedPush } from '@tilecast/transport-apns/test-double';
import { afterEach, describe, expect, it } from 'vitest';
import { request, startApi, type AdapterName, type ApiServer } from '../support/api-server.js';
import { progressUpdate } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';
import { openStore, stores, type StoreName, type TestStore } from '../support/stores.js';

const IDS = { teamId: 'TEAM123456', keyId: 'KEY7890ABC', bundleId: 'com.example.tilecast' };
const SLUG = 'match';
const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * The account's phones: on iOS 18 (`"channels": true`) and older, in both environments.
 * `update` is the token the Live Activity reports once started (none: the app follows the
 * channel only). `prod-17` leaves `channels` out (default false).
 */
const PHONES = {
  'prod-18': { environment: 'production', channels: true, start: '11'.repeat(32), update: '12'.repeat(32) },
  'prod-17': { environment: 'production', channels: undefined, start: '21'.repeat(32), update: '22'.repeat(32) },
  'sb-18': { environment: 'sandbox', channels: true, start: '31'.repeat(32), update: null },
  'sb-17': { environment: 'sandbox', channels: false, start: '41'.repeat(32), update: '42'.repeat(32) },
} as const;
type Phone = keyof typeof PHONES;
const PHONE_IDS = Object.keys(PHONES) as Phone[];
const updateTokensOf = (...phones: Phone[]) => phones.map((phone) => PHONES[phone].update).sort();

interface LogLine {
  level: 'info' | 'warn' | 'error';
  message: string;
  fields?: Record<string, unknown>;
}

interface Rig {
  clock: ManualClock;
  opened: TestStore;
  double: ApnsDouble;
  apns: ApnsTransport;
  api: ApiServer;
  logs: LogLine[];
  signingKey: string;
  acme: string;
  /** Device tokens (the `Device` authorization) by phone, and of `no-apns`, a device that never registered for APNs. */
  devices: Record<Phone | 'no-apns', string>;
  /** A transport of another process, on the same store and double; closed with the rig. */
  transport(options?: Partial<ApnsTransportOptions>): ApnsTransport;
  close(): Promise<void>;
}

function recordingLogger(logs: LogLine[]): Logger {
  return {
    info: (message, fields) => void logs.push({ level: 'info', message, fields }),
    warn: (message, fields) => void logs.push({ level: 'warn', message, fields }),
    error: (message, fields) => void logs.push({ level: 'error', message, fields }),
  };
}

/**
 * The service on `store` through `adapter`, with `@tilecast/transport-apns` to a fresh double
 * (its registry made from the same store), the account `acme`, its phones registered through
 * the device API, and the broadcast activity `match` (dismissal delay 30 s). No start-up
 * channel sweep unless asked: the sweep test waits for its own.
 */
async function boot(
  store: StoreName,
  adapter: AdapterName = 'node-http',
  options: { double?: Partial<ApnsDoubleOptions>; apns?: Partial<ApnsTransportOptions>; frequentUpdates?: boolean } = {},
): Promise<Rig> {
  const clock = createManualClock();
  const opened = await openStore(store);
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const signingKey = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const double = await startApnsDouble({ ...IDS, publicKey, clock, ...options.double });
  const logs: LogLine[] = [];
  const others: ApnsTransport[] = [];
  const transport = (more: Partial<ApnsTransportOptions> = {}) =>
    createApnsTransport({
      ...IDS,
      signingKey,
      registry: apnsRegistryFrom(opened.storage),
      origin: double.origin,
      ca: double.ca,
      clock,
      logger: recordingLogger(logs),
      channelSweep: false,
      ...more,
    });
  const apns = transport(options.apns);
  // As a list: the transport keeps its `broadcastActivity` (a wrapper pushing to two would not).
  const api = await startApi(adapter, { clock, storage: opened.storage, transports: [apns] });
  const m = api.tilecast.management;
  const { token: acme } = await m.createAccount({ id: 'acme' });
  await m.createActivity({
    account: 'acme',
    slug: SLUG,
    template: 'progress',
    dismissalDelayS: 30,
    delivery: 'broadcast',
    frequentUpdates: options.frequentUpdates ?? false,
  });
  const devices = {} as Rig['devices'];
  for (const id of [...PHONE_IDS, 'no-apns' as const]) devices[id] = (await m.registerDevice({ id, account: 'acme' })).token;
  const rig: Rig = {
    clock,
    opened,
    double,
    apns,
    api,
    logs,
    signingKey,
    acme,
    devices,
    transport(more) {
      const made = transport(more);
      others.push(made);
      return made;
    },
    async close() {
      await api.close();
      await apns.close();
      for (const other of others) await other.close();
      await double.close();
      await opened.release();
    },
  };
  for (const phone of PHONE_IDS) {
    const { environment, channels, start } = PHONES[phone];
    const body = { environment, push_to_start: start, ...(channels === undefined ? {} : { channels }) };
    expect((await asDevice(rig, phone, 'PUT', '/push', body)).status).toBe(204);
  }
  return rig;
}

const asDevice = (r: Rig, device: Phone | 'no-apns', method: string, path: string, body?: unknown) =>
  request(r.api, method, `/device${path}`, { authorization: `Device ${r.devices[device]}`, body });

/** The publisher's PATCH: answered 200 whatever becomes of the channels (docs/contract/broadcast-channels.md#broadcast-channel-limit). */
async function publish(r: Rig, value: number, state: 'ONGOING' | 'IDLE' = 'ONGOING'): Promise<void> {
  const answer = await request(r.api, 'PATCH', `/activity/${SLUG}`, { token: r.acme, body: progressUpdate(value, state) });
  expect(answer.status).toBe(200);
  // Every job run to its end: the broadcast step, then every per-device push answered.
  await r.api.tilecast.idle();
}

/** The Live Activities started on the phones that report an update token (the older ones, and prod-18). */
async function reportUpdateTokens(r: Rig): Promise<void> {
  for (const phone of PHONE_IDS) {
    const token = PHONES[phone].update;
    if (token !== null) expect((await asDevice(r, phone, 'PUT', `/activities/acme/${SLUG}/push`, { token })).status).toBe(204);
  }
}

const apsOf = (push: { payload: unknown }) => (push.payload as { aps: Record<string, unknown> }).aps;
const pushesOf = (r: Rig, event: string): ReceivedPush[] => r.double.received.filter((push) => apsOf(push).event === event);
/** The per-token pushes of `event`, by device token, sorted. */
const tokensOf = (r: Rig, event: string) =>
  pushesOf(r, event)
    .map((push) => push.deviceToken)
    .sort();
const broadcastsOf = (r: Rig, event: string): ReceivedBroadcast[] => r.double.broadcasts.filter((sent) => apsOf(sent).event === event);
const channelsStored = async (r: Rig) => (await r.opened.storage.getActivity('acme', SLUG))!.channels;
const channelIdShown = async (r: Rig, device: Phone | 'no-apns') => {
  const listed = await asDevice(r, device, 'GET', '/activities');
  expect(listed.status).toBe(200);
  return (listed.body.activities as Array<{ slug: string; channel_id: string | null }>).find((activity) => activity.slug === SLUG)?.channel_id;
};
const errors = (r: Rig) => r.logs.filter((line) => line.level === 'error');
const warnings = (r: Rig, containing: string) => r.logs.filter((line) => line.level === 'warn' && line.message.includes(containing));

/** Lets the transport's own work (a planned deletion, a start-up sweep) run until `condition` holds: bounded, about 5 s. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The start pushes: `input-push-channel` (its id) for each phone, or `token` for `"input-push-token": 1`. */
function startInputs(r: Rig): Record<string, string> {
  const byToken = Object.fromEntries(PHONE_IDS.map((phone) => [PHONES[phone].start, phone]));
  const inputs: Record<string, string> = {};
  for (const push of pushesOf(r, 'start')) {
    const aps = apsOf(push);
    expect(push.status).toBe(200);
    inputs[byToken[push.deviceToken]!] = aps['input-push-token'] === 1 ? 'token' : String(aps['input-push-channel']);
  }
  return inputs;
}

const expectSigned = (request: { jwt: ReceivedPush['jwt'] }) => {
  // The double verified the ES256 signature against the test key, `kid`, `iss` and age.
  expect(request.jwt?.header).toEqual({ alg: 'ES256', kid: IDS.keyId });
  expect(request.jwt?.claims).toMatchObject({ iss: IDS.teamId });
};

/** Starts `match` with both environments' channels made; answers them. */
async function started(r: Rig): Promise<{ production: string; sandbox: string }> {
  await publish(r, 0.1);
  const { production, sandbox } = await channelsStored(r);
  expect(production).toEqual(expect.any(String));
  expect(sandbox).toEqual(expect.any(String));
  await reportUpdateTokens(r);
  return { production: production!, sandbox: sandbox! };
}

describe.each(stores.flatMap((store) => (['node-http', 'express'] as const).map((adapter) => [store, adapter] as const)))(
  'a broadcast activity, PATCH to the APNs double: %s store through %s',
  (store, adapter) => {
    let r: Rig | undefined;
    afterEach(async () => {
      await r?.close();
      r = undefined;
    });

    it('start makes one channel per environment, update and end go out as one broadcast each, the channel is deleted after the dismissal', async () => {
      r = await boot(store, adapter);
      const t1 = r.clock.now();
      await publish(r, 0.25);

      // docs/contract/broadcast-channels.md#broadcast-channel-on-start: one channel per environment in use, policy 1.
      expect(r.double.channelRequests).toHaveLength(2);
      for (const made of r.double.channelRequests) {
        expect(made).toMatchObject({ method: 'POST', path: `/1/apps/${IDS.bundleId}/channels`, status: 201, reason: null });
        expect(made.body).toEqual({ 'message-storage-policy': 1, 'push-type': 'LiveActivity' });
        expectSigned(made);
      }
      const channels = await channelsStored(r);
      expect([channels.production, channels.sandbox].sort()).toEqual(r.double.channelRequests.map((made) => made.channelId).sort());
      expect(channels.production).not.toBe(channels.sandbox);
      expect(
        r.double
          .channels()
          .map((c) => [c.id, c.policy])
          .sort(),
      ).toEqual(
        [
          [channels.production, 1],
          [channels.sandbox, 1],
        ].sort(),
      );

      // docs/contract/broadcast-channels.md#broadcast-start: per device; the channel for those that follow channels.
      expect(r.double.broadcasts).toEqual([]);
      expect(startInputs(r)).toEqual({ 'prod-18': channels.production, 'prod-17': 'token', 'sb-18': channels.sandbox, 'sb-17': 'token' });
      const sb18Start = pushesOf(r, 'start').find((push) => push.deviceToken === PHONES['sb-18'].start)!;
      expectSigned(sb18Start);
      expect(sb18Start.headers['apns-topic']).toBe(`${IDS.bundleId}.push-type.liveactivity`);
      expect(apsOf(sb18Start)).toEqual({
        timestamp: seconds(t1),
        event: 'start',
        'content-state': { state: 'ONGOING', content: (await r.opened.storage.getActivity('acme', SLUG))!.content },
        'attributes-type': 'TilecastActivityAttributes',
        attributes: { owner: 'acme', slug: SLUG, template: 'progress' },
        alert: { title: SLUG, body: '' },
        'input-push-channel': channels.sandbox,
      });

      // docs/contract/broadcast-channels.md#broadcast-channel-id-sync: the channel of the device's environment.
      expect(await channelIdShown(r, 'prod-18')).toBe(channels.production);
      expect(await channelIdShown(r, 'prod-17')).toBe(channels.production);
      expect(await channelIdShown(r, 'sb-18')).toBe(channels.sandbox);
      expect(await channelIdShown(r, 'sb-17')).toBe(channels.sandbox);
      expect(await channelIdShown(r, 'no-apns')).toBeNull();

      await reportUpdateTokens(r);
      r.clock.advance(5_000);
      const t2 = r.clock.now();
      await publish(r, 0.5);
      // docs/contract/broadcast-channels.md#broadcast-update-end: one broadcast per environment...
      const updates = broadcastsOf(r, 'update');
      expect(updates.map((sent) => sent.channelId).sort()).toEqual([channels.production, channels.sandbox].sort());
      const content = (await r.opened.storage.getActivity('acme', SLUG))!.content;
      for (const sent of updates) {
        expect(sent).toMatchObject({ path: `/4/broadcasts/apps/${IDS.bundleId}`, status: 200, reason: null });
        expectSigned(sent);
        expect(sent.headers).toEqual({
          'apns-channel-id': sent.channelId,
          'apns-push-type': 'liveactivity',
          'apns-priority': '10',
          'apns-expiration': String(seconds(t2) + 3600),
        });
        expect(sent.payload).toEqual({ aps: { timestamp: seconds(t2), event: 'update', 'content-state': { state: 'ONGOING', content } } });
      }
      // ...and per token only for the phones that do not follow channels (prod-18's token is left out: the broadcast reached it).
      expect(tokensOf(r, 'update')).toEqual(updateTokensOf('prod-17', 'sb-17'));

      r.clock.advance(7_000);
      const t3 = r.clock.now();
      await publish(r, 1, 'IDLE');
      const ends = broadcastsOf(r, 'end');
      expect(ends.map((sent) => sent.channelId).sort()).toEqual([channels.production, channels.sandbox].sort());
      const ended = (await r.opened.storage.getActivity('acme', SLUG))!.content;
      for (const sent of ends) {
        expectSigned(sent);
        expect(sent.status).toBe(200);
        expect(sent.headers['apns-priority']).toBe('10');
        expect(sent.payload).toEqual({
          aps: { timestamp: seconds(t3), event: 'end', 'content-state': { state: 'IDLE', content: ended }, 'dismissal-date': seconds(t3) + 30 },
        });
      }
      expect(tokensOf(r, 'end')).toEqual(updateTokensOf('prod-17', 'sb-17'));
      expect(r.double.broadcasts).toHaveLength(4);

      // docs/contract/broadcast-channels.md#broadcast-channel-deletion: kept until the dismissal delay has passed...
      r.clock.advance(29_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(r.double.channelRequests.filter((q) => q.method === 'DELETE')).toEqual([]);
      expect(r.double.channels()).toHaveLength(2);
      // ...then deleted at APNs and forgotten by the store.
      r.clock.advance(1_000);
      await until(async () => (await channelsStored(r!)).production === null && (await channelsStored(r!)).sandbox === null, 'the channels forgotten');
      const deletions = r.double.channelRequests.filter((q) => q.method === 'DELETE');
      expect(deletions.map((q) => [q.channelId, q.status]).sort()).toEqual(
        [
          [channels.production, 204],
          [channels.sandbox, 204],
        ].sort(),
      );
      expect(r.double.channels()).toEqual([]);
      expect(r.apns.counters()).toMatchObject({ channelsCreated: 2, channelsDeleted: 2, broadcastsSent: 4, broadcastsFailed: 0, channelLimitHits: 0 });
      expect(errors(r)).toEqual([]);
    });
  },
);

describe.each(stores)('broadcast channels against the APNs double: %s store', (store) => {
  let r: Rig | undefined;
  afterEach(async () => {
    await r?.close();
    r = undefined;
  });

  it('frequent updates: channels of storage policy 0, broadcasts with apns-expiration 0 (docs/contract/broadcast-channels.md#broadcast-storage-policy)', async () => {
    r = await boot(store, 'node-http', { frequentUpdates: true });
    const channels = await started(r);
    expect(r.double.channelRequests.map((q) => q.body)).toEqual([
      { 'message-storage-policy': 0, 'push-type': 'LiveActivity' },
      { 'message-storage-policy': 0, 'push-type': 'LiveActivity' },
    ]);
    expect(r.double.channels().map((c) => c.policy)).toEqual([0, 0]);
    r.clock.advance(1_000);
    await publish(r, 0.5);
    // The double refuses a policy-0 broadcast that could be stored (BadExpirationDate): these were taken.
    expect(r.double.broadcasts.map((sent) => [sent.channelId, sent.headers['apns-expiration'], sent.status]).sort()).toEqual(
      [
        [channels.production, '0', 200],
        [channels.sandbox, '0', 200],
      ].sort(),
    );
  });

  it.each(['ChannelNotRegistered', 'BadChannelId'])(
    '%s: a new channel is made and stored, the broadcast sent again once and taken (docs/contract/broadcast-channels.md#broadcast-answers)',
    async (reason) => {
      r = await boot(store);
      const channels = await started(r);
      if (reason === 'ChannelNotRegistered') expect(r.double.removeChannel(channels.sandbox)).toBe(true);
      else r.double.answer({ on: 'broadcast', channel: channels.sandbox, answer: { status: 400, reason } });
      r.clock.advance(1_000);
      await publish(r, 0.5);

      const fresh = (await channelsStored(r)).sandbox!;
      expect(fresh).toEqual(expect.any(String));
      expect(fresh).not.toBe(channels.sandbox);
      expect((await channelsStored(r)).production).toBe(channels.production);
      const made = r.double.channelRequests.slice(2);
      expect(made.map((q) => [q.method, q.body, q.channelId, q.status])).toEqual([
        ['POST', { 'message-storage-policy': 1, 'push-type': 'LiveActivity' }, fresh, 201],
      ]);
      const sandbox = r.double.broadcasts.filter((sent) => sent.channelId !== channels.production);
      expect(sandbox.map((sent) => [sent.channelId, sent.status, sent.reason])).toEqual([
        [channels.sandbox, 400, reason],
        [fresh, 200, null],
      ]);
      expect(sandbox[1]!.payload).toEqual(sandbox[0]!.payload);
      expect(r.double.broadcasts.filter((sent) => sent.channelId === channels.production).map((sent) => sent.status)).toEqual([200]);
      // Both environments reached by broadcast: per token only the older phones.
      expect(tokensOf(r, 'update')).toEqual(updateTokensOf('prod-17', 'sb-17'));
      expect(await channelIdShown(r, 'sb-18')).toBe(fresh);
      expect(r.apns.counters()).toMatchObject({ broadcastsSent: 2, broadcastsFailed: 0, channelsCreated: 3 });

      // The next update goes to the new channel straight away.
      r.clock.advance(1_000);
      await publish(r, 0.75);
      expect(
        r.double.broadcasts
          .slice(3)
          .map((sent) => [sent.channelId, sent.status])
          .sort(),
      ).toEqual(
        [
          [channels.production, 200],
          [fresh, 200],
        ].sort(),
      );
    },
  );

  it('FeatureNotEnabled from the start: no channel, per-token delivery carries on, one error log line (docs/contract/broadcast-channels.md#broadcast-answers)', async () => {
    r = await boot(store, 'node-http', { double: { broadcast: false } });
    await publish(r, 0.1);
    expect(r.double.channelRequests.map((q) => [q.method, q.status, q.reason])).toEqual([
      ['POST', 400, 'FeatureNotEnabled'],
      ['POST', 400, 'FeatureNotEnabled'],
    ]);
    expect(await channelsStored(r)).toEqual({ production: null, sandbox: null });
    // Every start push as an older phone's, so that each Live Activity reports an update token.
    expect(startInputs(r)).toEqual({ 'prod-18': 'token', 'prod-17': 'token', 'sb-18': 'token', 'sb-17': 'token' });
    expect(await channelIdShown(r, 'prod-18')).toBeNull();
    await reportUpdateTokens(r);
    r.clock.advance(1_000);
    await publish(r, 0.5);
    r.clock.advance(1_000);
    await publish(r, 0.75);
    expect(r.double.broadcasts).toEqual([]);
    expect(r.double.channelRequests).toHaveLength(2); // off for the process: not asked again
    expect(tokensOf(r, 'update')).toEqual([...updateTokensOf('prod-18', 'prod-17', 'sb-17'), ...updateTokensOf('prod-18', 'prod-17', 'sb-17')].sort());
    expect(errors(r)).toEqual([{ level: 'error', message: expect.stringContaining('FeatureNotEnabled'), fields: { bundleId: IDS.bundleId } }]);
  });

  it('FeatureNotEnabled on a broadcast: that update goes per token, broadcast stays off, one error log line', async () => {
    r = await boot(store);
    await started(r);
    r.double.enableBroadcast(false);
    r.clock.advance(1_000);
    await publish(r, 0.5);
    expect(r.double.broadcasts.map((sent) => [sent.status, sent.reason])).toEqual([
      [400, 'FeatureNotEnabled'],
      [400, 'FeatureNotEnabled'],
    ]);
    // Not covered: every phone with an update token gets it (sb-18 follows the channel only, and APNs took nothing on it).
    expect(tokensOf(r, 'update')).toEqual(updateTokensOf('prod-18', 'prod-17', 'sb-17'));
    r.clock.advance(1_000);
    await publish(r, 0.75);
    expect(r.double.broadcasts).toHaveLength(2);
    expect(pushesOf(r, 'update')).toHaveLength(6);
    expect(errors(r)).toHaveLength(1);
    expect(errors(r)[0]!.message).toContain('FeatureNotEnabled');
  });

  it('CannotCreateChannelConfig at the start: the activity falls back to per-token pushes, the PATCH still 200 (docs/contract/broadcast-channels.md#broadcast-channel-limit)', async () => {
    r = await boot(store, 'node-http', { double: { channelLimit: 0 } });
    await publish(r, 0.1); // 200: checked by publish
    expect(r.double.channelRequests.map((q) => [q.method, q.status, q.reason])).toEqual([
      ['POST', 400, 'CannotCreateChannelConfig'],
      ['POST', 400, 'CannotCreateChannelConfig'],
    ]);
    expect(await channelsStored(r)).toEqual({ production: null, sandbox: null });
    expect(startInputs(r)).toEqual({ 'prod-18': 'token', 'prod-17': 'token', 'sb-18': 'token', 'sb-17': 'token' });
    await reportUpdateTokens(r);
    r.clock.advance(1_000);
    await publish(r, 0.5);
    expect(r.double.broadcasts).toEqual([]);
    expect(tokensOf(r, 'update')).toEqual(updateTokensOf('prod-18', 'prod-17', 'sb-17'));
    // Logged and counted, per environment.
    expect(warnings(r, 'CannotCreateChannelConfig')).toHaveLength(2);
    expect(r.apns.counters()).toMatchObject({ channelLimitHits: 2, channelsCreated: 0 });
    expect(errors(r)).toEqual([]);
  });

  it.each(['BadExpirationDate', 'BadPriority'])(
    '%s on a broadcast: refused, not retried; that environment gets per-token pushes, the PATCH still 200',
    async (reason) => {
      r = await boot(store);
      const channels = await started(r);
      r.double.answer({ on: 'broadcast', channel: channels.production, answer: { status: 400, reason } });
      r.clock.advance(1_000);
      await publish(r, 0.5);
      expect(r.double.broadcasts.map((sent) => [sent.channelId, sent.status, sent.reason]).sort()).toEqual(
        [
          [channels.production, 400, reason],
          [channels.sandbox, 200, null],
        ].sort(),
      );
      // Production not covered: prod-18's update token gets the update too; sandbox was, sb-17 per token as ever.
      expect(tokensOf(r, 'update')).toEqual(updateTokensOf('prod-18', 'prod-17', 'sb-17'));
      expect(r.double.channelRequests).toHaveLength(2); // no new channel for a refusal of the push itself
      expect(await channelsStored(r)).toEqual(channels);
      expect(warnings(r, 'broadcast not sent')).toEqual([
        { level: 'warn', message: expect.any(String), fields: expect.objectContaining({ environment: 'production', status: 400, reason }) },
      ]);
      expect(r.apns.counters()).toMatchObject({ broadcastsSent: 1, broadcastsFailed: 1 });
    },
  );

  it('a channel limit hit mid-game: the lost channel is forgotten, the update still reaches the phones with update tokens, the PATCH 200', async () => {
    r = await boot(store, 'node-http', { double: { channelLimit: 2 } });
    const channels = await started(r);
    // APNs lost the production channel, and the app's channels are full again when it is made anew.
    expect(r.double.removeChannel(channels.production)).toBe(true);
    r.double.addChannel();
    r.clock.advance(1_000);
    await publish(r, 0.5);
    expect(r.double.broadcasts.map((sent) => [sent.channelId, sent.status, sent.reason]).sort()).toEqual(
      [
        [channels.production, 400, 'ChannelNotRegistered'],
        [channels.sandbox, 200, null],
      ].sort(),
    );
    expect(r.double.channelRequests.slice(2).map((q) => [q.method, q.status, q.reason])).toEqual([['POST', 400, 'CannotCreateChannelConfig']]);
    expect(await channelsStored(r)).toEqual({ production: null, sandbox: channels.sandbox });
    // No lost update for a phone with an update token: prod-18 gets it per token.
    expect(tokensOf(r, 'update')).toEqual(updateTokensOf('prod-18', 'prod-17', 'sb-17'));
    expect(await channelIdShown(r, 'prod-18')).toBeNull();
    expect(await channelIdShown(r, 'sb-18')).toBe(channels.sandbox);

    // The next update: production per token from the start, sandbox broadcast.
    r.clock.advance(1_000);
    await publish(r, 0.75);
    expect(r.double.broadcasts.slice(2).map((sent) => [sent.channelId, sent.status])).toEqual([[channels.sandbox, 200]]);
    expect(
      pushesOf(r, 'update')
        .slice(3)
        .map((push) => push.deviceToken)
        .sort(),
    ).toEqual(updateTokensOf('prod-18', 'prod-17', 'sb-17'));
    expect(r.apns.counters()).toMatchObject({ channelLimitHits: 1, broadcastsSent: 2, broadcastsFailed: 1 });
  });

  it("the start-up sweep deletes the channels no stored activity holds, and keeps a live activity's (docs/contract/broadcast-channels.md#broadcast-orphan-cleanup)", async () => {
    r = await boot(store);
    const channels = await started(r);
    // What a crashed process left behind.
    const orphans = [r.double.addChannel(), r.double.addChannel(0)];
    const before = r.double.channelRequests.length;
    r.transport({ channelSweep: true }); // another process starting, sweep on as by default
    await until(() => r!.logs.some((line) => line.message === 'apns: channel sweep done'), 'the start-up sweep');
    const swept = r.double.channelRequests.slice(before);
    expect(swept[0]).toMatchObject({ method: 'GET', path: `/1/apps/${IDS.bundleId}/all-channels`, status: 200 });
    expectSigned(swept[0]!);
    expect(
      swept
        .slice(1)
        .map((q) => [q.method, q.channelId, q.status])
        .sort(),
    ).toEqual(orphans.map((id) => ['DELETE', id, 204]).sort());
    expect(
      r.double
        .channels()
        .map((c) => c.id)
        .sort(),
    ).toEqual([channels.production, channels.sandbox].sort());
    expect(r.logs.find((line) => line.message === 'apns: channel sweep done')?.fields).toEqual({ listed: 4, orphans: 2, ended: 0, deleted: 2, left: 0 });
    expect(await channelsStored(r)).toEqual(channels);
    // The activity goes on broadcasting on its kept channels.
    r.clock.advance(1_000);
    await publish(r, 0.5);
    expect(r.double.broadcasts.map((sent) => sent.status)).toEqual([200, 200]);
    // Called again (`sweepChannels()`): nothing left to delete.
    expect(await r.apns.sweepChannels()).toEqual({ listed: 2, orphans: 0, ended: 0, deleted: 0, left: 0 });
  });

  it('an ended activity whose planned deletion died with its process: the next start-up sweep deletes its channels and the store forgets them', async () => {
    r = await boot(store);
    const channels = await started(r);
    r.clock.advance(1_000);
    await publish(r, 1, 'IDLE');
    expect(broadcastsOf(r, 'end')).toHaveLength(2);
    await r.apns.close(); // the process dies: its planned deletions with it
    r.clock.advance(30_000);
    expect(r.double.channels()).toHaveLength(2);
    r.transport({ channelSweep: true });
    await until(() => r!.logs.some((line) => line.message === 'apns: channel sweep done'), 'the start-up sweep');
    expect(r.double.channels()).toEqual([]);
    expect(
      r.double.channelRequests
        .filter((q) => q.method === 'DELETE')
        .map((q) => q.channelId)
        .sort(),
    ).toEqual([channels.production, channels.sandbox].sort());
    expect(await channelsStored(r)).toEqual({ production: null, sandbox: null });
  });

  it.each(['a new activity', 'an activity restarted within its dismissal delay'])(
    '%s whose start an update superseded before any device: every start push names the channel stored, the updates reach it',
    async (kind) => {
      r = await boot(store);
      let old: Awaited<ReturnType<typeof started>> | null = null;
      if (kind !== 'a new activity') {
        old = await started(r);
        r.clock.advance(1_000);
        await publish(r, 1, 'IDLE'); // the old channels' deletion waits for the dismissal, 30 s on
        r.clock.advance(1_000);
      }
      const before = r.double.received.length;
      // The start, then an update at once: its job takes the start's place (docs/contract/durable-delivery.md#durable-supersede).
      for (const value of [0.1, 0.2]) {
        expect((await request(r.api, 'PATCH', `/activity/${SLUG}`, { token: r.acme, body: progressUpdate(value) })).status).toBe(200);
      }
      await r.api.tilecast.idle();
      const channels = await channelsStored(r);
      expect(channels.production).toEqual(expect.any(String));
      expect(channels.sandbox).toEqual(expect.any(String));
      if (old !== null) expect([channels.production, channels.sandbox]).not.toContain(old.production);
      // Each phone's last start push: the channel stored, which APNs has (the old run's and any other made meanwhile are gone).
      const lastStart = (phone: Phone) => {
        const pushes = r!.double.received.slice(before).filter((push) => push.deviceToken === PHONES[phone].start);
        const aps = apsOf(pushes[pushes.length - 1]!);
        return aps['input-push-token'] === 1 ? 'token' : aps['input-push-channel'];
      };
      expect(Object.fromEntries(PHONE_IDS.map((phone) => [phone, lastStart(phone)]))).toEqual({
        'prod-18': channels.production,
        'prod-17': 'token',
        'sb-18': channels.sandbox,
        'sb-17': 'token',
      });
      expect(
        r.double
          .channels()
          .map((c) => c.id)
          .sort(),
      ).toEqual([channels.production, channels.sandbox].sort());
      // The old run's end is dismissed: what this run uses stays.
      r.clock.advance(30_000);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await channelsStored(r)).toEqual(channels);
      await reportUpdateTokens(r);
      const sent = r.double.broadcasts.length;
      const updates = pushesOf(r, 'update').length;
      r.clock.advance(1_000);
      await publish(r, 0.5);
      expect(
        r.double.broadcasts
          .slice(sent)
          .map((b) => [b.channelId, b.status])
          .sort(),
      ).toEqual(
        [
          [channels.production, 200],
          [channels.sandbox, 200],
        ].sort(),
      );
      expect(
        pushesOf(r, 'update')
          .slice(updates)
          .map((push) => push.deviceToken)
          .sort(),
      ).toEqual(updateTokensOf('prod-17', 'sb-17'));
    },
  );
});
