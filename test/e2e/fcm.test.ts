/**
 * From a publisher's `PATCH` to the FCM test double (issue 36, "Done when"): the Android
 * app registers its registration token with `PUT /device/fcm`, the store keeps it, and
 * `@tilecast/transport-fcm` (its registry made from the same store) sends correctly
 * authorised data messages, on both stores (docs/contract/android-fcm.md#fcm-message).
 * Then APNs and FCM at once: a phone with both tokens gets each update from both.
 */
import { generateKeyPairSync } from 'node:crypto';
import { apnsRegistryFrom, createApnsTransport, type ApnsTransport } from '@tilecast/transport-apns';
import { startApnsDouble, type ApnsDouble } from '@tilecast/transport-apns/test-double';
import { createFcmTransport, fcmRegistryFrom, type FcmTransport } from '@tilecast/transport-fcm';
import { makeTestServiceAccount, startFcmDouble, type FcmDouble, type ReceivedMessage } from '@tilecast/transport-fcm/test-double';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { request, startApi, type ApiServer } from '../support/api-server.js';
import { progressUpdate, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';
import { openStore, stores, type TestStore } from '../support/stores.js';

const PROJECT = 'tilecast-e2e';
const PHONE = 'acme-phone:APA91b-acme';
const GUEST = 'guest-phone:APA91b-guest';
const seconds = (ms: number) => Math.floor(ms / 1000);

interface Tilecast {
  kind: 'activity' | 'widget';
  owner: string;
  slug: string;
  event: string;
  state: string | null;
  content?: unknown;
  timestamp: number;
  dismissal_date: number | null;
}

const dataOf = (message: ReceivedMessage) => message.data as Tilecast;
const androidOf = (message: ReceivedMessage) => (message.body as { message: { android: Record<string, unknown> } }).message.android;

describe.each(stores)('PATCH to the FCM double: %s store', (store) => {
  let clock: ManualClock;
  let opened: TestStore;
  let double: FcmDouble;
  let fcm: FcmTransport;
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
    const account = makeTestServiceAccount({ projectId: PROJECT });
    double = await startFcmDouble({ projectId: PROJECT, clientEmail: account.serviceAccount.client_email, publicKey: account.publicKey, clock });
    fcm = createFcmTransport({
      serviceAccount: account.json,
      registry: fcmRegistryFrom(opened.storage),
      origin: double.origin,
      tokenOrigin: double.origin,
      ca: double.ca,
      clock,
    });
    api = await startApi('node-http', { clock, storage: opened.storage, transports: [fcm] });
    f = await seedFixture(api.tilecast);
    // The app registers its registration token first, as docs/android.md tells it to.
    expect((await asDevice(f.deviceToken, 'PUT', '/fcm', { token: PHONE })).status).toBe(204);
    expect((await asDevice(f.guestToken, 'PUT', '/fcm', { token: GUEST })).status).toBe(204);
  });

  afterEach(async () => {
    await api.close();
    await fcm.close();
    await double.close();
    await opened.release();
  });

  const expectAuthorised = (message: ReceivedMessage) => {
    // The double answers 200 only with an access token it issued for an RS256 assertion of the test account.
    expect(message.status).toBe(200);
    expect(message.method).toBe('POST');
    expect(message.path).toBe(`/v1/projects/${PROJECT}/messages:send`);
    expect(message.accessToken).not.toBeNull();
  };

  it("an activity's start, update and end reach the double as authorised data messages with the right event, state, content and times", async () => {
    const t1 = clock.now();
    expect((await publish('/activity/build', progressUpdate(0.25))).status).toBe(200);
    await settled();
    expect(double.received).toHaveLength(1);
    const start = double.received[0]!;
    expectAuthorised(start);
    expect(start.registrationToken).toBe(PHONE);
    expect(androidOf(start)).toEqual({ collapse_key: 'acme/build', priority: 'high', ttl: '3600s' });
    expect(dataOf(start)).toEqual({
      kind: 'activity',
      owner: 'acme',
      slug: 'build',
      event: 'start',
      state: 'ONGOING',
      content: (await opened.storage.getActivity('acme', 'build'))!.content,
      timestamp: seconds(t1),
      dismissal_date: null,
    });

    clock.advance(5_000);
    const t2 = clock.now();
    await publish('/activity/build', progressUpdate(0.75));
    await settled();
    expect(double.received).toHaveLength(2);
    const update = double.received[1]!;
    expectAuthorised(update);
    expect(androidOf(update)).toMatchObject({ priority: 'normal' });
    expect(dataOf(update)).toMatchObject({ event: 'update', state: 'ONGOING', timestamp: seconds(t2), dismissal_date: null });
    expect(dataOf(update).content).toEqual((await opened.storage.getActivity('acme', 'build'))!.content);

    clock.advance(7_000);
    const t3 = clock.now();
    await publish('/activity/build', progressUpdate(1, 'IDLE'));
    await settled();
    expect(double.received).toHaveLength(3);
    const end = double.received[2]!;
    expectAuthorised(end);
    expect(androidOf(end)).toMatchObject({ priority: 'high' });
    expect(dataOf(end)).toMatchObject({ event: 'end', state: 'IDLE', timestamp: seconds(t3), dismissal_date: seconds(t3) + 30 });
    // One access token for the three: asked once, reused.
    expect(double.tokenRequests.map((token) => token.status)).toEqual([200]);
    expect(fcm.counters()).toMatchObject({ sent: 3, dropped: 0, retried: 0, accessTokens: 1 });
  });

  it('a widget PATCH reaches every device showing it as a "changed" message without content, throttled to one per window with one trailing', async () => {
    await publish('/widget/lights', { content: switchboardContent() });
    await settled();
    const byToken = (messages: ReceivedMessage[]) => messages.map((message) => message.registrationToken).sort();
    expect(byToken(double.received)).toEqual([PHONE, GUEST]);
    for (const message of double.received) {
      expectAuthorised(message);
      expect(androidOf(message)).toEqual({ collapse_key: 'acme/lights', priority: 'normal', ttl: '3600s' });
      expect(dataOf(message)).toEqual({
        kind: 'widget',
        owner: 'acme',
        slug: 'lights',
        event: 'changed',
        state: null,
        timestamp: seconds(clock.now()),
        dismissal_date: null,
      });
    }
    // Two more updates inside the 2 s window: nothing now, one trailing message each at its end.
    clock.advance(500);
    await publish('/widget/lights', { content: switchboardContent() });
    clock.advance(500);
    await publish('/widget/lights', { content: switchboardContent() });
    await settled();
    expect(double.received).toHaveLength(2);
    clock.advance(1_000);
    await settled();
    expect(double.received).toHaveLength(4);
    expect(byToken(double.received.slice(2))).toEqual([PHONE, GUEST]);
    expect(double.received.every((message) => message.status === 200 && dataOf(message).event === 'changed')).toBe(true);
  });

  it('a 401 renews the access token once and the message goes through with the new one', async () => {
    await publish('/activity/build', progressUpdate(0.25));
    await settled();
    const first = double.received[0]!.accessToken;
    // The service stops taking the token (revoked, or the key rotated): the next send is refused with 401.
    double.revokeAccessTokens();
    clock.advance(1_000);
    await publish('/activity/build', progressUpdate(0.5));
    await settled();
    expect(double.received.map((message) => message.status)).toEqual([200, 401, 200]);
    expect(double.received[2]!.accessToken).not.toBe(first);
    expect(double.tokenRequests.map((token) => token.status)).toEqual([200, 200]);
    expect(fcm.counters()).toMatchObject({ sent: 2, retried: 1, dropped: 0, accessTokens: 2 });
    expect(await opened.storage.listDeadLetters({ limit: 10 })).toEqual([]);
  });

  it('UNREGISTERED removes the token from the store; the device gets nothing more until it registers again', async () => {
    double.answer({ answer: { error: 'UNREGISTERED' }, token: GUEST });
    await publish('/widget/lights', { content: switchboardContent() });
    await settled();
    expect(await opened.storage.getFcmToken('guest-phone')).toBeNull();
    expect(await opened.storage.getFcmToken('acme-phone')).toBe(PHONE);
    clock.advance(2_000);
    await publish('/widget/lights', { content: switchboardContent() });
    await settled();
    const seen = double.received.map((message) => `${message.registrationToken} ${message.status}`);
    expect(seen.slice(0, 2).sort()).toEqual([`${PHONE} 200`, `${GUEST} 404`]);
    expect(seen.slice(2)).toEqual([`${PHONE} 200`]);
    expect(fcm.counters()).toMatchObject({ sent: 2, tokensRemoved: 1 });
    // A removed token is not a dead letter.
    expect(await opened.storage.listDeadLetters({ limit: 10 })).toEqual([]);
  });

  it('UNREGISTERED for a token the app replaced while the message was out removes nothing: the new token stays and gets the next message', async () => {
    // docs/contract/device-api.md#device-fcm-follows-token, on the store itself (not a registry in memory).
    const FRESH = 'acme-phone:APA91b-fresh';
    double.answer({ answer: 'stall', token: PHONE });
    await publish('/activity/build', progressUpdate(0.25));
    await double.waitForRequests(1);
    expect((await asDevice(f.deviceToken, 'PUT', '/fcm', { token: FRESH })).status).toBe(204);
    double.releaseStalled({ error: 'UNREGISTERED' });
    await settled();
    expect(await opened.storage.getFcmToken('acme-phone')).toBe(FRESH);
    expect(await opened.storage.getFcmToken('guest-phone')).toBe(GUEST);
    clock.advance(1_000);
    await publish('/activity/build', progressUpdate(0.5));
    await settled();
    // (A stalled message is logged as it arrived, before its answer.)
    expect(double.received.map((message) => message.registrationToken)).toEqual([PHONE, FRESH]);
    expect(double.received[1]!.status).toBe(200);
    expect(fcm.counters()).toMatchObject({ sent: 1, tokensRemoved: 1 });
  });

  it('one registration token held by devices of one account and of another: each holds its own; a DELETE or an UNREGISTERED of one leaves the others (docs/contract/device-api.md#device-fcm-shared-token)', async () => {
    const SHARED = 'shared-install:APA91b-same';
    const tablet = await api.tilecast.management.registerDevice({ id: 'acme-tablet', account: 'acme' });
    const holders = { 'acme-phone': f.deviceToken, 'acme-tablet': tablet.token, 'guest-phone': f.guestToken };
    const held = async () => Promise.all(Object.keys(holders).map((id) => opened.storage.getFcmToken(id)));
    for (const token of Object.values(holders)) expect((await asDevice(token, 'PUT', '/fcm', { token: SHARED })).status).toBe(204);
    expect(await held()).toEqual([SHARED, SHARED, SHARED]);
    expect((await asDevice(f.deviceToken, 'DELETE', '/fcm')).status).toBe(204);
    expect(await held()).toEqual([null, SHARED, SHARED]);
    expect((await asDevice(f.guestToken, 'DELETE', '/fcm')).status).toBe(204);
    expect(await held()).toEqual([null, SHARED, null]);
    for (const token of Object.values(holders)) expect((await asDevice(token, 'PUT', '/fcm', { token: SHARED })).status).toBe(204);

    // The widget reaches all three (the guest's by a share); FCM refuses the first message only.
    double.answer({ answer: { error: 'UNREGISTERED' }, token: SHARED });
    await publish('/widget/lights', { content: switchboardContent() });
    await settled();
    expect(double.received.map((message) => `${message.registrationToken} ${message.status}`).sort()).toEqual([
      `${SHARED} 200`,
      `${SHARED} 200`,
      `${SHARED} 404`,
    ]);
    // The token went from the one device whose message FCM answered so, and from no other.
    expect((await held()).filter((token) => token === SHARED)).toHaveLength(2);
    expect(fcm.counters()).toMatchObject({ sent: 2, tokensRemoved: 1 });
  });

  it('a refusal becomes a dead letter named fcm, with FCM’s error code', async () => {
    double.answer({ answer: { error: 'SENDER_ID_MISMATCH' }, token: PHONE });
    await publish('/activity/build', progressUpdate(0.25));
    await settled();
    const letters = await opened.storage.listDeadLetters({ limit: 10 });
    expect(letters.map(({ deviceId, transport, reason, kind, slug }) => ({ deviceId, transport, reason, kind, slug }))).toEqual([
      { deviceId: 'acme-phone', transport: 'fcm', reason: 'refused: SENDER_ID_MISMATCH', kind: 'activity', slug: 'build' },
    ]);
  });
});

describe.each(stores)('APNs and FCM at once: %s store', (store) => {
  let opened: TestStore;
  let apnsDouble: ApnsDouble;
  let fcmDouble: FcmDouble;
  let apns: ApnsTransport;
  let fcm: FcmTransport;
  let api: ApiServer;
  const IDS = { teamId: 'TEAM123456', keyId: 'KEY7890ABC', bundleId: 'com.example.tilecast' };

  beforeEach(async () => {
    opened = await openStore(store);
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    apnsDouble = await startApnsDouble({ ...IDS, publicKey });
    apns = createApnsTransport({
      ...IDS,
      signingKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      registry: apnsRegistryFrom(opened.storage),
      origin: apnsDouble.origin,
      ca: apnsDouble.ca,
    });
    const account = makeTestServiceAccount({ projectId: PROJECT });
    fcmDouble = await startFcmDouble({ projectId: PROJECT, clientEmail: account.serviceAccount.client_email, publicKey: account.publicKey });
    fcm = createFcmTransport({
      serviceAccount: account.json,
      registry: fcmRegistryFrom(opened.storage),
      origin: fcmDouble.origin,
      tokenOrigin: fcmDouble.origin,
      ca: fcmDouble.ca,
    });
    api = await startApi('node-http', { storage: opened.storage, transports: [apns, fcm] });
  });

  afterEach(async () => {
    await api.close();
    await Promise.all([apns.close(), fcm.close()]);
    await Promise.all([apnsDouble.close(), fcmDouble.close()]);
    await opened.release();
  });

  it('a phone with an APNs and an FCM token gets the widget push from both; one with a single token, from its own', async () => {
    const f = await seedFixture(api.tilecast);
    const asDevice = (token: string, method: string, path: string, body?: unknown) =>
      request(api, method, `/device${path}`, { authorization: `Device ${token}`, body });
    const WIDGETS = 'c3'.repeat(32);
    expect((await asDevice(f.deviceToken, 'PUT', '/push', { environment: 'sandbox', widgets: WIDGETS })).status).toBe(204);
    expect((await asDevice(f.deviceToken, 'PUT', '/fcm', { token: PHONE })).status).toBe(204);
    expect((await asDevice(f.guestToken, 'PUT', '/fcm', { token: GUEST })).status).toBe(204);
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } })).status).toBe(200);
    await api.tilecast.idle();
    expect(apnsDouble.received.map((push) => [push.deviceToken, push.status, push.headers['apns-push-type']])).toEqual([[WIDGETS, 200, 'widgets']]);
    expect(fcmDouble.received.map((message) => [message.registrationToken, message.status]).sort()).toEqual([
      [PHONE, 200],
      [GUEST, 200],
    ]);
    expect(apns.counters()).toMatchObject({ sent: 1, skipped: 1 });
    expect(fcm.counters()).toMatchObject({ sent: 2, skipped: 0 });
  });
});
