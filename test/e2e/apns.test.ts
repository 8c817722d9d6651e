/**
 * From a publisher's `PATCH` to the APNs test double (issue 22, "Done when"): the device
 * registers its tokens through the device sync API, the store keeps them, and
 * `@tilecast/transport-apns` (its registry made from the same store) sends correctly
 * signed pushes, on both stores, through node:http and Express. (Not through every adapter:
 * a slow suite, and what it checks lies below the adapters, which api-server's other suites
 * cover one by one.)
 */
import { generateKeyPairSync } from 'node:crypto';
import { createApnsTransport, apnsRegistryFrom, type ApnsTransport } from '@tilecast/transport-apns';
import { startApnsDouble, type ApnsDouble, type ReceivedPush } from '@tilecast/transport-apns/test-double';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request, startApi, type AdapterName, type ApiServer } from '../support/api-server.js';
import { progressUpdate, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';
import { openStore, stores, type TestStore } from '../support/stores.js';

const IDS = { teamId: 'TEAM123456', keyId: 'KEY7890ABC', bundleId: 'com.example.tilecast' };
const START = 'A1'.repeat(32); // sent upper case: stored and used lower case
const UPDATE = 'b2'.repeat(32);
const WIDGETS = 'c3'.repeat(32);
const GUEST_WIDGETS = 'd4'.repeat(32);
const seconds = (ms: number) => Math.floor(ms / 1000);
const e2eAdapters: AdapterName[] = ['node-http', 'express'];

describe.each(stores.flatMap((store) => e2eAdapters.map((adapter) => [store, adapter] as const)))(
  'PATCH to the APNs double: %s store through %s',
  (store, adapter) => {
    let clock: ManualClock;
    let opened: TestStore;
    let double: ApnsDouble;
    let apns: ApnsTransport;
    let api: ApiServer;
    let f: Fixture;

    const asDevice = (token: string, method: string, path: string, body?: unknown) =>
      request(api, method, `/device${path}`, { authorization: `Device ${token}`, body });
    const publish = (path: string, body: unknown) => request(api, 'PATCH', path, { token: f.acme, body });
    /** Waits for every push to be done with (sent, dropped, token removed). */
    const settled = () => api.tilecast.idle();

    beforeEach(async () => {
      clock = createManualClock();
      opened = await openStore(store);
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      double = await startApnsDouble({ ...IDS, publicKey, clock });
      apns = createApnsTransport({
        ...IDS,
        signingKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
        registry: apnsRegistryFrom(opened.storage),
        origin: double.origin,
        ca: double.ca,
        clock,
      });
      api = await startApi(adapter, { clock, storage: opened.storage, transport: apns });
      f = await seedFixture(api.tilecast);
      // The app registers its tokens first, as docs/ios.md tells it to.
      expect((await asDevice(f.deviceToken, 'PUT', '/push', { environment: 'sandbox', push_to_start: START, widgets: WIDGETS })).status).toBe(204);
      expect((await asDevice(f.guestToken, 'PUT', '/push', { environment: 'production', widgets: GUEST_WIDGETS })).status).toBe(204);
    });

    afterEach(async () => {
      await api.close();
      await apns.close();
      await double.close();
      await opened.release();
    });

    const expectSigned = (push: ReceivedPush) => {
      // The double verified the ES256 signature against the test key, `kid`, `iss` and age.
      expect(push.status).toBe(200);
      expect(push.method).toBe('POST');
      expect(push.jwt?.header).toEqual({ alg: 'ES256', kid: IDS.keyId });
      expect(push.jwt?.claims).toMatchObject({ iss: IDS.teamId });
    };

    it("an activity's start, update and end reach the double as liveactivity pushes with the right event, content-state and timestamps", async () => {
      const t1 = clock.now();
      expect((await publish('/activity/build', progressUpdate(0.25))).status).toBe(200);
      await settled();
      expect(double.received).toHaveLength(1);
      const start = double.received[0]!;
      expectSigned(start);
      expect(start.path).toBe(`/3/device/${START.toLowerCase()}`);
      expect(start.headers['apns-push-type']).toBe('liveactivity');
      expect(start.headers['apns-topic']).toBe(`${IDS.bundleId}.push-type.liveactivity`);
      expect(start.headers['apns-priority']).toBe('10');
      expect(Number(start.headers['apns-expiration'])).toBe(seconds(t1) + 3600);
      const stored = (await opened.storage.getActivity('acme', 'build'))!;
      expect(start.payload).toEqual({
        aps: {
          timestamp: seconds(t1),
          event: 'start',
          'content-state': { state: 'ONGOING', content: stored.content },
          'attributes-type': 'TilecastActivityAttributes',
          attributes: { owner: 'acme', slug: 'build', template: 'progress' },
          alert: { title: 'build', body: '' },
          'input-push-token': 1,
        },
      });

      // The Live Activity started on the phone and reports its update token.
      expect((await asDevice(f.deviceToken, 'PUT', '/activities/acme/build/push', { token: UPDATE })).status).toBe(204);
      clock.advance(5_000);
      const t2 = clock.now();
      await publish('/activity/build', progressUpdate(0.75));
      await settled();
      expect(double.received).toHaveLength(2);
      const update = double.received[1]!;
      expectSigned(update);
      expect(update.path).toBe(`/3/device/${UPDATE}`);
      expect(update.headers['apns-push-type']).toBe('liveactivity');
      expect(update.payload).toEqual({
        aps: {
          timestamp: seconds(t2),
          event: 'update',
          'content-state': { state: 'ONGOING', content: (await opened.storage.getActivity('acme', 'build'))!.content },
        },
      });

      clock.advance(7_000);
      const t3 = clock.now();
      await publish('/activity/build', progressUpdate(1, 'IDLE'));
      await settled();
      expect(double.received).toHaveLength(3);
      const end = double.received[2]!;
      expectSigned(end);
      expect(end.path).toBe(`/3/device/${UPDATE}`);
      expect(end.headers['apns-priority']).toBe('10');
      expect(end.payload).toEqual({
        aps: {
          timestamp: seconds(t3),
          event: 'end',
          'content-state': { state: 'IDLE', content: (await opened.storage.getActivity('acme', 'build'))!.content },
          'dismissal-date': seconds(t3) + 30,
        },
      });
      // After the end, the update token is forgotten; the device's own tokens stay.
      expect(await opened.storage.getActivityPushToken('acme-phone', 'acme', 'build')).toBeNull();
      expect((await opened.storage.getApnsRegistration('acme-phone'))?.pushToStart).toBe(START.toLowerCase());
      expect(apns.counters()).toMatchObject({ sent: 3, dropped: 0, retried: 0 });
    });

    it('a widget PATCH reaches every device showing it as a widgets push, throttled to one per window with one trailing push', async () => {
      await publish('/widget/lights', { content: switchboardContent() });
      await settled();
      const byToken = (pushes: ReceivedPush[]) => pushes.map((push) => push.deviceToken).sort();
      expect(byToken(double.received)).toEqual([WIDGETS, GUEST_WIDGETS].sort());
      for (const push of double.received) {
        expectSigned(push);
        expect(push.headers['apns-push-type']).toBe('widgets');
        expect(push.headers['apns-topic']).toBe(`${IDS.bundleId}.push-type.widgets`);
        expect(push.payload).toEqual({ aps: { 'content-changed': true } });
      }
      // Two more updates inside the 2 s window: nothing now, one trailing push at its end.
      clock.advance(500);
      await publish('/widget/lights', { content: switchboardContent() });
      clock.advance(500);
      await publish('/widget/lights', { content: switchboardContent() });
      await settled();
      expect(double.received).toHaveLength(2);
      clock.advance(1_000);
      await settled();
      expect(double.received).toHaveLength(4);
      expect(byToken(double.received.slice(2))).toEqual([WIDGETS, GUEST_WIDGETS].sort());
      expect(double.received.every((push) => push.status === 200)).toBe(true);
    });

    it('a token APNs refuses (410 Unregistered) is removed from the store; a device that removed its tokens gets nothing', async () => {
      double.answer({ answer: { status: 410, reason: 'Unregistered' }, token: GUEST_WIDGETS });
      await publish('/widget/lights', { content: switchboardContent() });
      await settled();
      expect(await opened.storage.getApnsRegistration('guest-phone')).toEqual({ environment: 'production', pushToStart: null, widgets: null, channels: false });
      expect((await asDevice(f.deviceToken, 'DELETE', '/push')).status).toBe(204);
      clock.advance(2_000);
      await publish('/widget/lights', { content: switchboardContent() });
      await settled();
      expect(double.received).toHaveLength(2); // nothing more: no token left anywhere
      expect(apns.counters()).toMatchObject({ sent: 1, tokensRemoved: 1 });
    });
  },
);
