import { createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { createFcmTransport, createMemoryFcmRegistry } from '@tilecast/transport-fcm';
import { makeTestServiceAccount } from '@tilecast/transport-fcm/test-double';
import { afterEach, describe, expect, it } from 'vitest';
import { FCM_SCOPE } from '../src/access-token.js';
import { requestAccessToken } from '../src/token-endpoint.js';
import { activity, flush, rig, T0, testAccount, until, widget, type Rig } from './support.js';

const MIN = 60_000;
const seconds = T0 / 1000;
const b64 = (text: string) => Buffer.from(text).toString('base64url');

describe('transport-fcm: the access token (docs/contract/android-fcm.md#fcm-access-token)', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('is obtained with an RS256 JWT-bearer assertion for the messaging scope, valid for an hour', async () => {
    r = await rig();
    await r.transport.pushWidget('phone', widget());
    expect(r.double.tokenRequests).toHaveLength(1);
    const [request] = r.double.tokenRequests;
    expect(request).toMatchObject({ status: 200, error: null });
    expect(request!.assertion).toEqual({
      header: { alg: 'RS256', typ: 'JWT' },
      claims: {
        iss: r.account.serviceAccount.client_email,
        scope: 'https://www.googleapis.com/auth/firebase.messaging',
        aud: `${r.double.origin}/token`,
        iat: seconds,
        exp: seconds + 3600,
      },
    });
    expect(r.double.received[0]!.status).toBe(200);
    expect(r.transport.counters()).toMatchObject({ sent: 1, accessTokens: 1 });
  });

  it('is reused until 5 minutes before it expires, then renewed', async () => {
    r = await rig();
    await r.transport.pushWidget('phone', widget());
    r.clock.advance(54 * MIN);
    await r.transport.pushWidget('other', widget());
    r.clock.advance(58 * 1000); // 54:58 after it was asked for: 5:01 of its 59:59 left
    await r.transport.pushWidget('phone', widget({ slug: 'pump' }));
    expect(r.double.tokenRequests).toHaveLength(1);
    r.clock.advance(1_000); // 5:00 left
    await r.transport.pushWidget('other', widget({ slug: 'pump' }));
    expect(r.double.tokenRequests).toHaveLength(2);
    const tokens = r.double.received.map((g) => g.accessToken);
    expect(new Set(tokens.slice(0, 3)).size).toBe(1);
    expect(tokens[3]).not.toBe(tokens[0]);
    expect(r.double.received.map((g) => g.status)).toEqual([200, 200, 200, 200]);
  });

  it('one renewal at a time: a fan-out that starts without a token asks for one', async () => {
    r = await rig();
    const slugs = Array.from({ length: 30 }, (_, i) => `w${i}`);
    const outcomes = await Promise.all(slugs.map((slug, i) => r.transport.pushWidget(i % 2 ? 'phone' : 'other', widget({ slug }))));
    expect(outcomes.every((outcome) => outcome === 'delivered')).toBe(true);
    expect(r.double.tokenRequests).toHaveLength(1);
    expect(r.transport.counters()).toMatchObject({ sent: 30, accessTokens: 1 });
  });

  it('401 renews the access token once and sends again with the new one', async () => {
    r = await rig();
    await r.transport.pushWidget('phone', widget());
    r.double.answer({ answer: { error: 'UNAUTHENTICATED' } });
    expect(await r.transport.pushWidget('other', widget())).toBe('delivered');
    const [first, refused, again] = r.double.received;
    expect([first!.status, refused!.status, again!.status]).toEqual([200, 401, 200]);
    expect(refused!.accessToken).toBe(first!.accessToken);
    expect(again!.accessToken).not.toBe(first!.accessToken);
    expect(r.transport.counters()).toMatchObject({ sent: 2, retried: 1, accessTokens: 2, dropped: 0 });
  });

  it('a token the service stopped taking (revoked) is renewed on its first 401', async () => {
    r = await rig();
    await r.transport.pushWidget('phone', widget());
    r.double.revokeAccessTokens();
    expect(await r.transport.pushActivity('phone', activity('start', T0))).toBe('delivered');
    expect(r.double.received.map((g) => g.status)).toEqual([200, 401, 200]);
  });

  it('a flood of 401s renews once', async () => {
    r = await rig();
    await r.transport.pushWidget('phone', widget());
    r.double.revokeAccessTokens();
    const slugs = Array.from({ length: 20 }, (_, i) => `w${i}`);
    const outcomes = await Promise.all(slugs.map((slug) => r.transport.pushWidget('other', widget({ slug }))));
    expect(outcomes.every((outcome) => outcome === 'delivered')).toBe(true);
    expect(r.double.tokenRequests).toHaveLength(2);
    expect(r.transport.counters()).toMatchObject({ sent: 21, retried: 20, accessTokens: 2 });
  });

  it('401 on the renewed token too: refused, logged as an error, and no more renewals within a minute', async () => {
    // Push 1: 401, renewed, 401 again: refused. Push 2: 401 on that same token, less than a
    // minute after it was renewed: refused without a renewal. The token stays in use.
    r = await rig();
    r.double.answer({ answer: { error: 'UNAUTHENTICATED' }, times: 3 });
    expect(await r.transport.pushWidget('phone', widget())).toEqual({ outcome: 'refused', reason: 'access token refused: UNAUTHENTICATED' });
    expect(await r.transport.pushWidget('other', widget())).toEqual({ outcome: 'refused', reason: 'access token refused: UNAUTHENTICATED' });
    expect(r.double.tokenRequests).toHaveLength(2);
    expect(r.transport.counters()).toMatchObject({ sent: 0, dropped: 2, retried: 1 });
    expect(r.logs.some((l) => l.level === 'error' && l.message.startsWith('fcm: access token refused (401)'))).toBe(true);
    r.clock.advance(MIN);
    expect(await r.transport.pushWidget('other', widget({ slug: 'pump' }))).toBe('delivered');
    expect(r.double.tokenRequests).toHaveLength(2);
    // A minute on, a 401 renews again.
    r.double.answer({ answer: { error: 'UNAUTHENTICATED' } });
    expect(await r.transport.pushWidget('phone', widget({ slug: 'pump' }))).toBe('delivered');
    expect(r.double.tokenRequests).toHaveLength(3);
  });

  it('a token endpoint that refuses the grant: refused at once, logged as an error, never echoing the key', async () => {
    r = await rig();
    r.double.answerToken({ status: 400, error: 'invalid_grant: Invalid JWT Signature.' });
    expect(await r.transport.pushWidget('phone', widget())).toEqual({ outcome: 'refused', reason: 'access token refused' });
    expect(r.double.received).toHaveLength(0);
    expect(r.logs.find((l) => l.level === 'error')).toMatchObject({ fields: { status: 400, error: 'invalid_grant' } });
    expect(JSON.stringify(r.logs)).not.toContain('PRIVATE KEY');
  });

  it('a token endpoint that fails (500, or no answer in time) is asked again as the push is retried', async () => {
    r = await rig({ requestTimeoutMs: 5_000 });
    r.double.answerToken({ status: 500 });
    r.double.answerToken('stall');
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the first retry');
    r.clock.advance(750); // the 1 s base, jittered to 0.75
    await until(() => r.double.tokenRequests.length === 2, 'the second token request');
    r.clock.advance(5_000); // it never answers: timed out
    await until(() => r.transport.counters().retried === 2, 'the second retry');
    r.clock.advance(1_500);
    expect(await sending).toBe('delivered');
    expect(r.double.tokenRequests.map((t) => t.status)).toEqual([500, 0, 200]);
    expect(r.transport.counters()).toMatchObject({ sent: 1, retried: 2, accessTokens: 1 });
    r.double.releaseStalled();
  });

  it('the double refuses an assertion signed with another key, or claiming another account', async () => {
    r = await rig();
    const stranger = makeTestServiceAccount({ projectId: 'tilecast-test', clientEmail: r.account.serviceAccount.client_email });
    const wrongKey = createFcmTransport({
      serviceAccount: stranger.serviceAccount,
      registry: r.registry,
      origin: r.double.origin,
      tokenOrigin: r.double.origin,
      ca: r.double.ca,
      clock: r.clock,
      connectionThread: 'main',
    });
    const wrongAccount = createFcmTransport({
      serviceAccount: { ...r.account.serviceAccount, client_email: 'someone@else.iam.gserviceaccount.com' },
      registry: r.registry,
      origin: r.double.origin,
      tokenOrigin: r.double.origin,
      ca: r.double.ca,
      clock: r.clock,
      connectionThread: 'main',
    });
    try {
      expect(await wrongKey.pushWidget('phone', widget())).toEqual({ outcome: 'refused', reason: 'access token refused' });
      expect(await wrongAccount.pushWidget('phone', widget())).toEqual({ outcome: 'refused', reason: 'access token refused' });
      expect(r.double.tokenRequests.map((t) => [t.status, t.error])).toEqual([
        [400, 'invalid_grant: Invalid JWT Signature.'],
        [401, 'invalid_client: The OAuth client was not found.'],
      ]);
      expect(r.double.received).toHaveLength(0);
    } finally {
      await wrongKey.close();
      await wrongAccount.close();
    }
  });

  it("the double's checks can fail: a bad signature, alg, iss, aud, scope, lifetime or time is refused", async () => {
    r = await rig();
    const key = createPrivateKey(r.account.serviceAccount.private_key);
    const base = { iss: r.account.serviceAccount.client_email, scope: FCM_SCOPE, aud: `${r.double.origin}/token`, iat: seconds, exp: seconds + 3600 };
    const jwt = (claims: Record<string, unknown>, alg = 'RS256') => {
      const input = `${b64(JSON.stringify({ alg, typ: 'JWT' }))}.${b64(JSON.stringify(claims))}`;
      return `${input}.${sign('sha256', Buffer.from(input), key).toString('base64url')}`;
    };
    const ask = (assertion: string) => requestAccessToken({ origin: r.double.origin, ca: r.double.ca, assertion, timeoutMs: 5_000, clock: r.clock });
    expect(await ask(jwt(base))).toMatchObject({ kind: 'token', expiresInS: 3599 });
    const refusals = [
      jwt(base).slice(0, -4) + 'AAAA',
      jwt(base, 'RS512'),
      jwt({ ...base, iss: 'x@y.iam.gserviceaccount.com' }),
      jwt({ ...base, aud: 'https://oauth2.googleapis.com/token' }),
      jwt({ ...base, scope: 'https://www.googleapis.com/auth/cloud-platform.read-only' }),
      jwt({ ...base, exp: seconds + 3601 }),
      jwt({ ...base, iat: seconds - 3600, exp: seconds }),
      jwt({ ...base, iat: seconds + 600, exp: seconds + 1200 }),
    ];
    const answers = [];
    for (const assertion of refusals) answers.push(await ask(assertion));
    expect(answers.map((a) => (a.kind === 'refused' ? `${a.status} ${a.error}` : a.kind))).toEqual([
      '400 invalid_grant',
      '400 invalid_grant',
      '401 invalid_client',
      '400 invalid_grant',
      '400 invalid_scope',
      '400 invalid_grant',
      '400 invalid_grant',
      '400 invalid_grant',
    ]);
  });
});

describe('transport-fcm: the service account is checked at creation', () => {
  const registry = createMemoryFcmRegistry();
  const good = testAccount().serviceAccount;

  it.each([
    ['not JSON', 'service_account', /not JSON/],
    ['no project id', JSON.stringify({ ...good, project_id: undefined }), /project_id/],
    ['a project id with a slash', { ...good, project_id: 'a/b' }, /project_id/],
    ['no client email', { ...good, client_email: '' }, /client_email/],
    ['no key', { ...good, private_key: undefined }, /private_key is missing/],
    ['a key that is not PEM', { ...good, private_key: 'secret' }, /not a PEM private key/],
  ])('%s', (_name, serviceAccount, message) => {
    expect(() => createFcmTransport({ serviceAccount: serviceAccount as never, registry, connectionThread: 'main' })).toThrow(message);
  });

  it('an EC key is refused (RS256 needs RSA), and the message never echoes the key', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    let message = '';
    try {
      createFcmTransport({ serviceAccount: { ...good, private_key: pem }, registry, connectionThread: 'main' });
    } catch (error) {
      message = String(error);
    }
    expect(message).toMatch(/must be an RSA key/);
    expect(message).not.toContain('PRIVATE KEY');
  });

  it('nothing is asked before the first push', async () => {
    const transport = createFcmTransport({
      serviceAccount: good,
      registry,
      origin: 'https://127.0.0.1:1',
      tokenOrigin: 'https://127.0.0.1:1',
      connectionThread: 'main',
    });
    await flush();
    expect(transport.counters()).toMatchObject({ accessTokens: 0, sent: 0 });
    await transport.close();
  });
});
