import { connect } from 'node:http2';
import { afterEach, describe, expect, it } from 'vitest';
import { signProviderToken } from '@tilecast/transport-apns';
import { createPrivateKey } from 'node:crypto';
import { CONNECTION_THREADS, activity, BUNDLE_ID, KEY_ID, rig, T0, TEAM_ID, testSigningKey, transportTo, until, widget, type Rig } from './support.js';

const MIN = 60_000;
const iatOf = (r: Rig, i: number) => r.double.received[i]!.jwt!.claims.iat;

describe('transport-apns: provider tokens', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('one token is reused, and renewed once 50 minutes old (inside 20 to 60)', async () => {
    r = await rig();
    await r.transport.pushWidget('phone', widget());
    r.clock.advance(49 * MIN);
    await r.transport.pushWidget('other', widget());
    r.clock.advance(1 * MIN);
    await r.transport.pushWidget('phone', widget({ slug: 'pump' }));
    expect([iatOf(r, 0), iatOf(r, 1), iatOf(r, 2)]).toEqual([T0 / 1000, T0 / 1000, T0 / 1000 + 50 * 60]);
    expect(r.double.received.map((g) => g.status)).toEqual([200, 200, 200]);
    expect(r.transport.counters().providerTokens).toBe(2);
  });

  it('403 ExpiredProviderToken renews the token once and retries', async () => {
    r = await rig();
    await r.transport.pushWidget('phone', widget());
    r.clock.advance(25 * MIN);
    r.double.answer({ answer: { status: 403, reason: 'ExpiredProviderToken' } });
    await r.transport.pushWidget('other', widget());
    expect(r.double.received.map((g) => [g.status, g.jwt!.claims.iat])).toEqual([
      [200, T0 / 1000],
      [403, T0 / 1000],
      [200, T0 / 1000 + 25 * 60],
    ]);
    expect(r.transport.counters()).toMatchObject({ sent: 2, retried: 1, providerTokens: 2 });
  });

  it('a flood of 403s renews once: no renewal storm, no TooManyProviderTokenUpdates', async () => {
    r = await rig();
    await r.transport.pushWidget('phone', widget());
    r.clock.advance(25 * MIN);
    r.double.answer({ answer: { status: 403, reason: 'ExpiredProviderToken' }, times: 20 });
    const slugs = Array.from({ length: 20 }, (_, i) => `w${i}`);
    await Promise.all(slugs.map((slug) => r.transport.pushWidget('phone', widget({ slug }))));
    expect(r.transport.counters()).toMatchObject({ sent: 21, retried: 20, providerTokens: 2, dropped: 0 });
    expect(r.double.received.filter((g) => g.status === 429)).toHaveLength(0);
    expect(new Set(r.double.received.map((g) => g.jwt!.claims.iat))).toEqual(new Set([T0 / 1000, T0 / 1000 + 25 * 60]));
  });

  it('403 ExpiredProviderToken on a token younger than 20 minutes is not renewed (Apple would refuse it)', async () => {
    r = await rig();
    r.clock.advance(5 * MIN);
    r.double.answer({ answer: { status: 403, reason: 'ExpiredProviderToken' }, times: 5 });
    await Promise.all(['a', 'b', 'c'].map((slug) => r.transport.pushWidget('phone', widget({ slug }))));
    expect(r.transport.counters()).toMatchObject({ sent: 0, dropped: 3, providerTokens: 1, retried: 0 });
    expect(r.logs.some((l) => l.level === 'error' && l.message === 'apns: provider token refused as expired')).toBe(true);
  });

  it('a second 403 for the renewed token is not renewed again', async () => {
    r = await rig();
    await r.transport.pushWidget('other', widget());
    r.clock.advance(30 * MIN);
    r.double.answer({ answer: { status: 403, reason: 'ExpiredProviderToken' }, times: 2 });
    await r.transport.pushWidget('phone', widget());
    expect(r.double.received.map((g) => [g.status, g.jwt!.claims.iat])).toEqual([
      [200, T0 / 1000],
      [403, T0 / 1000],
      [403, T0 / 1000 + 30 * 60],
    ]);
    expect(r.transport.counters()).toMatchObject({ sent: 1, dropped: 1, providerTokens: 2, retried: 1 });
  });
});

describe('transport-apns: connections and streams', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('never opens more streams than maxConcurrentStreams on a connection; the rest wait in order', async () => {
    r = await rig({ maxConcurrentStreams: 3 });
    r.double.answer({ answer: 'stall', times: 3 });
    const slugs = Array.from({ length: 10 }, (_, i) => `w${i}`);
    const all = Promise.all(slugs.map((slug) => r.transport.pushWidget('phone', widget({ slug }))));
    await r.double.waitForRequests(3);
    // 2 × maxConcurrentStreams pushes are at work: 3 on streams, 3 waiting for one; the
    // other 4 wait to be looked up at all.
    await until(() => Object.values(r.transport.load())[0]?.waiting === 3, '3 requests waiting for a stream');
    expect(r.double.stats().openStreams).toBe(3);
    expect(r.double.received).toHaveLength(3);
    r.double.releaseStalled();
    await all;
    expect(r.double.stats().peakOpenStreams).toBe(3);
    expect(r.double.received.map((g) => g.status)).toEqual(Array(10).fill(200).fill(0, 0, 3));
    expect(r.transport.counters()).toMatchObject({ sent: 10 });
  });

  it('a fan-out to many devices looks up at most 2 × maxConcurrentStreams at once, a few per turn of the event loop', async () => {
    r = await rig({ maxConcurrentStreams: 10 });
    const devices = Array.from({ length: 500 }, (_, i) => `fleet-${i}`);
    for (const [i, id] of devices.entries()) r.registry.register(id, { environment: 'sandbox', widgets: i.toString(16).padStart(64, '0') });
    let lookingUp = 0;
    let mostAtOnce = 0;
    let lookupsThisTurn = 0;
    let mostPerTurn = 0;
    const registrationsOf = r.registry.registrationsOf.bind(r.registry);
    r.registry.registrationsOf = async (deviceId) => {
      // Lookups started in one uninterrupted run (the count resets once it yields).
      if (lookupsThisTurn++ === 0) queueMicrotask(() => (lookupsThisTurn = 0));
      mostPerTurn = Math.max(mostPerTurn, lookupsThisTurn);
      mostAtOnce = Math.max(mostAtOnce, ++lookingUp);
      try {
        return await registrationsOf(deviceId);
      } finally {
        lookingUp -= 1;
      }
    };
    r.double.answer({ answer: 'stall', times: 10 });
    const all = Promise.all(devices.map((id) => r.transport.pushWidget(id, widget())));
    await r.double.waitForRequests(10);
    await until(() => Object.values(r.transport.load())[0]?.waiting === 10, '10 requests waiting for a stream');
    r.double.releaseStalled();
    await all;
    expect(r.transport.counters()).toMatchObject({ sent: 500, dropped: 0 });
    expect(r.double.received).toHaveLength(500);
    expect(mostPerTurn).toBeLessThanOrEqual(8);
    expect(mostAtOnce).toBeLessThanOrEqual(20);
  });

  it.each(CONNECTION_THREADS)('GOAWAY: the refused push is retried on a new connection (connections on the %s thread)', async (connectionThread) => {
    r = await rig({ connectionThread });
    await r.transport.pushWidget('other', widget());
    r.double.answer({ answer: 'goaway' });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry');
    r.clock.advance(750);
    await sending;
    expect(r.double.received.map((g) => [g.connection, g.status, g.reason])).toEqual([
      [1, 200, null],
      [1, 0, 'goaway'],
      [2, 200, null],
    ]);
    expect(r.double.stats().connections).toBe(2);
    expect(r.transport.counters()).toMatchObject({ sent: 2, retried: 1, reconnects: 1 });
  });

  it('a reset stream is retried', async () => {
    r = await rig();
    r.double.answer({ answer: 'reset' });
    const sending = r.transport.pushActivity('phone', activity('start', T0));
    await until(() => r.transport.counters().retried === 1, 'the retry');
    r.clock.advance(750);
    await sending;
    expect(r.double.received.map((g) => g.status)).toEqual([0, 200]);
    expect(r.transport.counters()).toMatchObject({ sent: 1, retried: 1 });
  });

  it('a stalled stream is cancelled after the request timeout and retried on a fresh connection', async () => {
    r = await rig({ requestTimeoutMs: 4_000 });
    r.double.answer({ answer: 'stall' });
    const sending = r.transport.pushWidget('phone', widget());
    await r.double.waitForRequests(1);
    r.clock.advance(3_999);
    await until(() => r.double.stats().openStreams === 1, 'the stalled stream');
    expect(r.transport.counters().timeouts).toBe(0);
    r.clock.advance(1);
    await until(() => r.transport.counters().retried === 1, 'the retry');
    expect(r.transport.counters().timeouts).toBe(1);
    await until(() => r.double.stats().openStreams === 0, 'the cancelled stream to close');
    r.clock.advance(750);
    await sending;
    expect(r.double.received.map((g) => [g.connection, g.status])).toEqual([
      [1, 0],
      [2, 200],
    ]);
    expect(r.transport.counters()).toMatchObject({ sent: 1, timeouts: 1, reconnects: 1 });
  });

  it('a stalled stream on a connection that still answers only cancels that stream', async () => {
    r = await rig({ requestTimeoutMs: 4_000 });
    r.double.answer({ answer: 'stall' });
    const sending = r.transport.pushWidget('phone', widget());
    await r.double.waitForRequests(1);
    r.clock.advance(2_000);
    await r.transport.pushWidget('other', widget()); // answered meanwhile
    r.clock.advance(2_000);
    await until(() => r.transport.counters().retried === 1, 'the retry');
    r.clock.advance(750);
    await sending;
    expect(r.double.received.map((g) => g.connection)).toEqual([1, 1, 1]);
    expect(r.transport.counters()).toMatchObject({ sent: 2, timeouts: 1, reconnects: 0 });
  });

  it('an unreachable origin is retried, then dropped, without throwing', async () => {
    r = await rig();
    const origin = r.double.origin;
    await r.double.close();
    const { createApnsTransport } = await import('@tilecast/transport-apns');
    const transport = createApnsTransport({
      teamId: TEAM_ID,
      keyId: KEY_ID,
      bundleId: BUNDLE_ID,
      signingKey: r.signingKey,
      registry: r.registry,
      origin,
      ca: r.double.ca,
      clock: r.clock,
      random: () => 0.5,
      channelSweep: false,
    });
    const sending = transport.pushWidget('phone', widget());
    await until(() => transport.counters().retried === 1, 'the first retry');
    r.clock.advance(750);
    await until(() => transport.counters().retried === 2, 'the second retry');
    r.clock.advance(1_500);
    await sending;
    expect(transport.counters()).toMatchObject({ sent: 0, retried: 2, dropped: 1, reconnects: 2 });
    await transport.close();
  });
});

describe('transport-apns: options', () => {
  it('takes KeyObjects as well as PEM text, on both sides', async () => {
    const { generateKeyPairSync } = await import('node:crypto');
    const { createMemoryApnsRegistry } = await import('@tilecast/transport-apns');
    const { startApnsDouble } = await import('@tilecast/transport-apns/test-double');
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    for (const key of [publicKey, privateKey]) {
      const double = await startApnsDouble({ teamId: TEAM_ID, keyId: KEY_ID, bundleId: BUNDLE_ID, publicKey: key });
      const registry = createMemoryApnsRegistry();
      registry.register('phone', { environment: 'production', widgets: 'ab'.repeat(32) });
      const transport = transportTo(double, registry, privateKey);
      await transport.pushWidget('phone', widget());
      expect(double.received.map((g) => g.status)).toEqual([200]);
      await transport.close();
      await double.close();
    }
  });

  it('refuses a signing key that is not an EC P-256 private key, without echoing it', async () => {
    const { createApnsTransport, createMemoryApnsRegistry } = await import('@tilecast/transport-apns');
    const base = { teamId: TEAM_ID, keyId: KEY_ID, bundleId: BUNDLE_ID, registry: createMemoryApnsRegistry() };
    expect(() => createApnsTransport({ ...base, signingKey: 'not a key SECRETSTUFF' })).toThrow(
      /^transport-apns: signingKey is not a PEM private key \(the \.p8 file text\)$/,
    );
    const { generateKeyPairSync } = await import('node:crypto');
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect(() => createApnsTransport({ ...base, signingKey: rsa })).toThrow('transport-apns: signingKey must be an EC P-256 private key');
    expect(() => createApnsTransport({ ...base, teamId: '', signingKey: testSigningKey().privateKey })).toThrow('transport-apns: teamId is required');
  });
});

describe('APNs test double: provider token checks', () => {
  let r: Rig;
  afterEach(() => r?.close());

  /** Sends requests on one raw HTTP/2 connection, as a push provider would. */
  const rawClient = (rr: Rig) => {
    const session = connect(rr.double.origin, { ca: rr.double.ca });
    const send = (jwt: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const stream = session.request({
          ':method': 'POST',
          ':path': `/3/device/${'ab'.repeat(32)}`,
          authorization: `bearer ${jwt}`,
          'apns-push-type': 'widgets',
          'apns-topic': `${BUNDLE_ID}.push-type.widgets`,
        });
        let status = 0;
        let body = '';
        stream.setEncoding('utf8');
        stream.on('response', (h) => (status = Number(h[':status'])));
        stream.on('data', (c: string) => (body += c));
        stream.on('end', () => resolve({ status, body }));
        stream.on('error', reject);
        stream.end(JSON.stringify({ aps: { 'content-changed': true } }));
      });
    return { send, close: () => session.close() };
  };

  it('verifies signature, kid, iss, age and renewal frequency', async () => {
    r = await rig();
    const key = createPrivateKey(r.signingKey);
    const now = T0 / 1000;
    const client = rawClient(r);
    const other = createPrivateKey(testSigningKey().privateKey);
    expect(await client.send(signProviderToken(other, KEY_ID, TEAM_ID, now))).toEqual({ status: 403, body: '{"reason":"InvalidProviderToken"}' });
    expect(await client.send(signProviderToken(key, 'OTHERKEY00', TEAM_ID, now))).toEqual({ status: 403, body: '{"reason":"InvalidProviderToken"}' });
    expect(await client.send(signProviderToken(key, KEY_ID, 'OTHERTEAM0', now))).toEqual({ status: 403, body: '{"reason":"InvalidProviderToken"}' });
    expect(await client.send(signProviderToken(key, KEY_ID, TEAM_ID, now - 3601))).toEqual({ status: 403, body: '{"reason":"ExpiredProviderToken"}' });
    expect((await client.send(signProviderToken(key, KEY_ID, TEAM_ID, now - 1800))).status).toBe(200);
    // A new token 19 minutes after the one in use on this connection: too soon.
    expect(await client.send(signProviderToken(key, KEY_ID, TEAM_ID, now - 1800 + 19 * 60))).toEqual({
      status: 429,
      body: '{"reason":"TooManyProviderTokenUpdates"}',
    });
    expect((await client.send(signProviderToken(key, KEY_ID, TEAM_ID, now - 1800 + 20 * 60))).status).toBe(200);
    client.close();
  });

  it('checks the topic, push type, priority and payload shape', async () => {
    r = await rig();
    const key = createPrivateKey(r.signingKey);
    const session = connect(r.double.origin, { ca: r.double.ca });
    const jwt = signProviderToken(key, KEY_ID, TEAM_ID, T0 / 1000);
    const send = (headers: Record<string, string>, body: unknown) =>
      new Promise<string>((resolve) => {
        const stream = session.request({ ':method': 'POST', ':path': `/3/device/${'ab'.repeat(32)}`, authorization: `bearer ${jwt}`, ...headers });
        let text = '';
        stream.setEncoding('utf8');
        stream.on('data', (c: string) => (text += c));
        stream.on('end', () => resolve(text));
        stream.end(JSON.stringify(body));
      });
    const live = { 'apns-push-type': 'liveactivity', 'apns-topic': `${BUNDLE_ID}.push-type.liveactivity` };
    expect(await send({ ...live, 'apns-topic': BUNDLE_ID }, {})).toBe('{"reason":"TopicDisallowed"}');
    expect(await send({ ...live, 'apns-push-type': 'alert' }, {})).toBe('{"reason":"InvalidPushType"}');
    expect(await send({ ...live, 'apns-priority': '7' }, {})).toBe('{"reason":"BadPriority"}');
    expect(await send(live, { aps: { timestamp: 1.5, event: 'update', 'content-state': { state: 'ONGOING', content: {} } } })).toContain(
      'timestamp is not whole seconds',
    );
    expect(await send(live, { aps: { timestamp: 1, event: 'update', 'content-state': { state: 'ONGOING', content: {} }, alert: {} } })).toContain(
      'unexpected aps keys: alert',
    );
    expect(await send(live, { aps: { timestamp: 1, event: 'end', 'content-state': { state: 'IDLE', content: {} } } })).toContain('dismissal-date');
    expect(await send(live, { aps: { timestamp: 1, event: 'update', 'content-state': { state: 'ONGOING', content: {} } } })).toBe('');
    session.close();
  });
});
