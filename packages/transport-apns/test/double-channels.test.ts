/**
 * The test double's channel management API and broadcast endpoint, asked directly: what it
 * answers, so that a transport bug shows up there as it would at APNs.
 */
import { connect, type ClientHttp2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import { signProviderToken } from '@tilecast/transport-apns';
import { startApnsDouble, type ApnsDouble, type ApnsDoubleOptions } from '@tilecast/transport-apns/test-double';
import { createPrivateKey } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { BUNDLE_ID, KEY_ID, T0, TEAM_ID, TOKENS, testSigningKey } from './support.js';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: unknown;
}

const CHANNELS = `/1/apps/${BUNDLE_ID}/channels`;
const BROADCASTS = `/4/broadcasts/apps/${BUNDLE_ID}`;
const update = { aps: { timestamp: T0 / 1000, event: 'update', 'content-state': { state: 'ONGOING', content: {} } } };

describe('transport-apns test double: channels and broadcasts (docs/contract/broadcast-channels.md)', () => {
  let double: ApnsDouble;
  let session: ClientHttp2Session;
  let authorization: string;
  afterEach(async () => {
    session?.destroy();
    await double?.close();
  });

  async function start(options: Partial<ApnsDoubleOptions> = {}): Promise<void> {
    const { privateKey, publicKey } = testSigningKey();
    const clock = { now: () => T0 };
    double = await startApnsDouble({ teamId: TEAM_ID, keyId: KEY_ID, bundleId: BUNDLE_ID, publicKey, clock, ...options });
    authorization = `bearer ${signProviderToken(createPrivateKey(privateKey), KEY_ID, TEAM_ID, T0 / 1000)}`;
    session = connect(double.origin, { ca: double.ca });
  }

  function send(headers: OutgoingHttpHeaders, body?: unknown): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const stream = session.request({ authorization, ...headers });
      let status = 0;
      let received: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      stream.on('response', (h) => {
        status = Number(h[':status']);
        received = h;
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status, headers: received, body: text === '' ? undefined : JSON.parse(text) });
      });
      stream.on('error', reject);
      stream.end(body === undefined ? undefined : JSON.stringify(body));
    });
  }

  const create = (policy: unknown = 1, pushType: unknown = 'LiveActivity') =>
    send({ ':method': 'POST', ':path': CHANNELS }, { 'message-storage-policy': policy, 'push-type': pushType });
  const made = async (policy: 0 | 1 = 1): Promise<string> => {
    const answer = await create(policy);
    expect(answer.status).toBe(201);
    return answer.headers['apns-channel-id'] as string;
  };
  const broadcastOn = (channelId: string | undefined, headers: OutgoingHttpHeaders = {}, body: unknown = update) =>
    send(
      {
        ':method': 'POST',
        ':path': BROADCASTS,
        ...(channelId === undefined ? {} : { 'apns-channel-id': channelId }),
        'apns-push-type': 'liveactivity',
        'apns-priority': '10',
        'apns-expiration': String(T0 / 1000 + 3600),
        ...headers,
      },
      body,
    );
  const reason = (answer: Answer) => [answer.status, (answer.body as { reason?: string } | undefined)?.reason];

  it('creates, reads, lists and deletes channels', async () => {
    await start();
    const id = await made(0);
    expect(id).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    const read = await send({ ':method': 'GET', ':path': CHANNELS, 'apns-channel-id': id });
    expect([read.status, read.body]).toEqual([200, { 'message-storage-policy': 0, 'push-type': 'LiveActivity' }]);
    const other = await made(1);
    const list = await send({ ':method': 'GET', ':path': `/1/apps/${BUNDLE_ID}/all-channels` });
    expect([list.status, list.body]).toEqual([200, { channels: [id, other] }]);
    expect((await send({ ':method': 'DELETE', ':path': CHANNELS, 'apns-channel-id': id })).status).toBe(204);
    expect(double.channels()).toEqual([{ id: other, policy: 1 }]);
    expect(double.channelRequests.map((q) => [q.method, q.channelId, q.status])).toEqual([
      ['POST', id, 201],
      ['GET', id, 200],
      ['POST', other, 201],
      ['GET', null, 200],
      ['DELETE', id, 204],
    ]);
    expect(double.received).toEqual([]);
  });

  it('ChannelNotRegistered: a deleted or unknown channel, to a broadcast, a read or a delete', async () => {
    await start();
    const id = await made();
    await send({ ':method': 'DELETE', ':path': CHANNELS, 'apns-channel-id': id });
    expect(reason(await broadcastOn(id))).toEqual([400, 'ChannelNotRegistered']);
    expect(reason(await send({ ':method': 'GET', ':path': CHANNELS, 'apns-channel-id': id }))).toEqual([400, 'ChannelNotRegistered']);
    expect(reason(await send({ ':method': 'DELETE', ':path': CHANNELS, 'apns-channel-id': 'AAAAAAAAAAAAAAAAAAAAAA==' }))).toEqual([
      400,
      'ChannelNotRegistered',
    ]);
    expect(double.broadcasts.map((b) => [b.channelId, b.status, b.reason])).toEqual([[id, 400, 'ChannelNotRegistered']]);
  });

  it('BadChannelId for a malformed id, MissingChannelId without one', async () => {
    await start();
    expect(reason(await broadcastOn('not a channel!'))).toEqual([400, 'BadChannelId']);
    expect(reason(await send({ ':method': 'GET', ':path': CHANNELS, 'apns-channel-id': 'abc' }))).toEqual([400, 'BadChannelId']);
    expect(reason(await broadcastOn(undefined))).toEqual([400, 'MissingChannelId']);
  });

  it('FeatureNotEnabled when broadcast is off for the app (an option, or switched)', async () => {
    await start({ broadcast: false });
    expect(reason(await create())).toEqual([400, 'FeatureNotEnabled']);
    expect(reason(await send({ ':method': 'GET', ':path': `/1/apps/${BUNDLE_ID}/all-channels` }))).toEqual([400, 'FeatureNotEnabled']);
    double.enableBroadcast();
    const id = await made();
    double.enableBroadcast(false);
    expect(reason(await broadcastOn(id))).toEqual([400, 'FeatureNotEnabled']);
  });

  it('CannotCreateChannelConfig past the channel limit; a deletion makes room', async () => {
    await start({ channelLimit: 2 });
    const first = await made();
    await made();
    expect(reason(await create())).toEqual([400, 'CannotCreateChannelConfig']);
    await send({ ':method': 'DELETE', ':path': CHANNELS, 'apns-channel-id': first });
    expect((await create()).status).toBe(201);
  });

  it('a creation: push-type LiveActivity and policy 0 or 1 only', async () => {
    await start();
    expect(reason(await create(1, 'Alert'))).toEqual([400, 'InvalidPushType']);
    expect(reason(await create(2))).toEqual([400, 'DoubleBadPayload: message-storage-policy is not 0 or 1']);
    expect(double.channels()).toEqual([]);
  });

  it('BadExpirationDate: not whole seconds, or other than 0 on a policy-0 channel', async () => {
    await start();
    const kept = await made(1);
    const fleeting = await made(0);
    expect(reason(await broadcastOn(kept, { 'apns-expiration': 'soon' }))).toEqual([400, 'BadExpirationDate']);
    expect(reason(await broadcastOn(fleeting))).toEqual([400, 'BadExpirationDate']);
    expect((await broadcastOn(fleeting, { 'apns-expiration': '0' })).status).toBe(200);
    expect((await broadcastOn(kept)).status).toBe(200);
  });

  it('BadPriority unless 5 or 10; InvalidPushType unless liveactivity', async () => {
    await start();
    const id = await made();
    expect(reason(await broadcastOn(id, { 'apns-priority': '7' }))).toEqual([400, 'BadPriority']);
    expect((await broadcastOn(id, { 'apns-priority': '5' })).status).toBe(200);
    expect(reason(await broadcastOn(id, { 'apns-push-type': 'alert' }))).toEqual([400, 'InvalidPushType']);
  });

  it('the payload: aps with timestamp, event update or end and content-state; never a start', async () => {
    await start();
    const id = await made();
    expect(reason(await broadcastOn(id, {}, { aps: { event: 'update', 'content-state': { state: 'ONGOING', content: {} } } }))).toEqual([
      400,
      'DoubleBadPayload: timestamp is not whole seconds',
    ]);
    expect(reason(await broadcastOn(id, {}, { aps: { timestamp: 1, event: 'update' } }))).toEqual([400, 'DoubleBadPayload: content-state is not an object']);
    const startPayload = {
      aps: {
        ...update.aps,
        event: 'start',
        'attributes-type': 'A',
        attributes: { owner: 'o', slug: 's', template: 't' },
        alert: { title: 's', body: '' },
        'input-push-token': 1,
      },
    };
    expect(reason(await broadcastOn(id, {}, startPayload))).toEqual([400, 'DoubleBadPayload: a broadcast cannot start an activity']);
    const answer = await broadcastOn(id);
    expect(answer.status).toBe(200);
    expect(double.broadcasts.at(-1)).toMatchObject({
      channelId: id,
      status: 200,
      payload: update,
      headers: { 'apns-push-type': 'liveactivity', 'apns-priority': '10' },
    });
  });

  it('checks the provider token and the bundle of the path', async () => {
    await start();
    const id = await made();
    authorization = 'bearer nope';
    expect(reason(await broadcastOn(id))).toEqual([403, 'InvalidProviderToken']);
    expect(reason(await create())).toEqual([403, 'InvalidProviderToken']);
    const { privateKey } = testSigningKey();
    authorization = `bearer ${signProviderToken(createPrivateKey(privateKey), KEY_ID, TEAM_ID, T0 / 1000)}`;
    expect(reason(await create())).toEqual([403, 'InvalidProviderToken']);
  });

  it('rules answer their kind of request only', async () => {
    await start();
    double.answer({ on: 'broadcast', answer: { status: 503, reason: 'ServiceUnavailable' } });
    double.answer({ on: 'channels', answer: { status: 500, reason: 'InternalServerError' } });
    double.answer({ answer: { status: 410, reason: 'Unregistered' } });
    expect(reason(await create())).toEqual([500, 'InternalServerError']);
    expect(double.channels()).toEqual([]);
    const id = await made();
    expect(reason(await broadcastOn(id))).toEqual([503, 'ServiceUnavailable']);
    const push = await send(
      { ':method': 'POST', ':path': `/3/device/${TOKENS.start}`, 'apns-push-type': 'liveactivity', 'apns-topic': `${BUNDLE_ID}.push-type.liveactivity` },
      update,
    );
    expect(reason(push)).toEqual([410, 'Unregistered']);
    expect((await broadcastOn(id)).status).toBe(200);
  });
});
