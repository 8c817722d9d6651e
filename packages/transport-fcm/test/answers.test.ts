import { afterEach, describe, expect, it, vi } from 'vitest';
import { activity, CONNECTION_THREADS, flush, rig, T0, TOKENS, until, widget, type Rig } from './support.js';

const MIN = 60_000;

describe.each(CONNECTION_THREADS)('transport-fcm: answers (docs/contract/android-fcm.md#fcm-answers) (connection on the %s thread)', (connectionThread) => {
  let r: Rig;
  afterEach(() => r?.close());

  it('404 UNREGISTERED removes the token, never retried, and the device is skipped from then on', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'UNREGISTERED' } });
    expect(await r.transport.pushWidget('phone', widget())).toBe('token_removed');
    expect(r.double.received.map((g) => [g.status, g.error])).toEqual([[404, 'UNREGISTERED']]);
    expect(await r.registry.tokenOf('phone')).toBeNull();
    expect(await r.registry.tokenOf('other')).toBe(TOKENS.other);
    expect(await r.transport.pushActivity('phone', activity('start', T0))).toBe('skipped');
    expect(r.double.received).toHaveLength(1);
    expect(r.transport.counters()).toMatchObject({ tokensRemoved: 1, retried: 0, sent: 0, dropped: 0, skipped: 1 });
  });

  it('400 INVALID_ARGUMENT naming the token removes it; naming another field refuses the push and keeps the token', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'INVALID_ARGUMENT', field: 'message.token' } });
    r.double.answer({ answer: { error: 'INVALID_ARGUMENT', field: 'message.android.ttl' } });
    r.double.answer({ answer: { error: 'INVALID_ARGUMENT' } });
    expect(await r.transport.pushWidget('phone', widget())).toBe('token_removed');
    // Each refused push tells why, with FCM's error code: a dead letter's reason.
    expect(await r.transport.pushWidget('other', widget())).toEqual({ outcome: 'refused', reason: 'INVALID_ARGUMENT' });
    expect(await r.transport.pushWidget('other', widget({ slug: 'pump' }))).toEqual({ outcome: 'refused', reason: 'INVALID_ARGUMENT' });
    expect(await r.registry.tokenOf('phone')).toBeNull();
    expect(await r.registry.tokenOf('other')).toBe(TOKENS.other);
    expect(r.transport.counters()).toMatchObject({ tokensRemoved: 1, dropped: 2, retried: 0 });
  });

  it('a token the app replaced meanwhile is not removed', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: 'stall' });
    const sending = r.transport.pushWidget('phone', widget());
    await r.double.waitForRequests(1);
    r.registry.register('phone', TOKENS.fresh);
    r.double.releaseStalled({ error: 'UNREGISTERED' });
    expect(await sending).toBe('token_removed');
    expect(await r.registry.tokenOf('phone')).toBe(TOKENS.fresh);
    expect(await r.transport.pushWidget('phone', widget({ slug: 'pump' }))).toBe('delivered');
    expect(r.double.received.map((g) => g.registrationToken)).toEqual([TOKENS.phone, TOKENS.fresh]);
  });

  it('429 QUOTA_EXCEEDED without Retry-After waits at least a minute before the retry', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'QUOTA_EXCEEDED' } });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry to be planned');
    r.clock.advance(MIN - 1);
    await flush();
    expect(r.double.received).toHaveLength(1);
    r.clock.advance(251); // a minute, plus the jitter (0.5 of half the 1 s base)
    expect(await sending).toBe('delivered');
    expect(r.double.received.map((g) => [g.status, g.error])).toEqual([
      [429, 'QUOTA_EXCEEDED'],
      [200, null],
    ]);
  });

  it('429 QUOTA_EXCEEDED with Retry-After waits what it says (seconds or an HTTP date)', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'QUOTA_EXCEEDED', retryAfter: '120' } });
    r.double.answer({ answer: { error: 'QUOTA_EXCEEDED', retryAfter: new Date(T0 + 90_000).toUTCString() } });
    const first = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the first retry to be planned');
    const second = r.transport.pushWidget('other', widget());
    await until(() => r.transport.counters().retried === 2, 'the second retry to be planned');
    r.clock.advance(90_249);
    await flush();
    expect(r.double.received).toHaveLength(2);
    r.clock.advance(1);
    expect(await second).toBe('delivered');
    r.clock.advance(120_250 - 90_250 - 1);
    await flush();
    expect(r.double.received).toHaveLength(3);
    r.clock.advance(1);
    expect(await first).toBe('delivered');
  });

  it('503 UNAVAILABLE honours Retry-After; 500 INTERNAL then 200 is delivered on the retry', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'UNAVAILABLE', retryAfter: '5' } });
    const sending = r.transport.pushActivity('phone', activity('start', T0));
    await until(() => r.transport.counters().retried === 1, 'the retry');
    r.clock.advance(5_249);
    await flush();
    expect(r.double.received).toHaveLength(1);
    r.clock.advance(1);
    expect(await sending).toBe('delivered');
    r.double.answer({ answer: { error: 'INTERNAL' } });
    const again = r.transport.pushActivity('phone', activity('update', T0 + 1_000));
    await until(() => r.transport.counters().retried === 2, 'the retry');
    r.clock.advance(750); // 1 s base, jittered to 0.75
    expect(await again).toBe('delivered');
    expect(r.double.received.map((g) => g.status)).toEqual([503, 200, 500, 200]);
  });

  it('500 INTERNAL on every attempt: retried twice with a growing jittered backoff, then dropped', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'INTERNAL' }, times: 3 });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the first retry');
    r.clock.advance(749);
    await flush();
    expect(r.double.received).toHaveLength(1);
    r.clock.advance(1);
    await until(() => r.transport.counters().retried === 2, 'the second retry');
    r.clock.advance(1_499);
    await flush();
    expect(r.double.received).toHaveLength(2);
    r.clock.advance(1);
    expect(await sending).toEqual({ outcome: 'dropped', reason: 'retries used up: INTERNAL' });
    expect(r.double.received.map((g) => g.status)).toEqual([500, 500, 500]);
    expect(r.transport.counters()).toMatchObject({ sent: 0, retried: 2, dropped: 1, tokensRemoved: 0 });
    expect(r.logs.some((l) => l.level === 'warn' && l.message === 'fcm: push dropped (retries used up)')).toBe(true);
  });

  it('a lost stream is retried like a 5xx', async () => {
    r = await rig({ connectionThread, retryBaseMs: 10 });
    r.double.answer({ answer: 'reset' });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry');
    r.clock.advance(8);
    expect(await sending).toBe('delivered');
  });

  it('other refusals (403 SENDER_ID_MISMATCH, THIRD_PARTY_AUTH_ERROR) are refused without a retry, the token kept', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'SENDER_ID_MISMATCH' } });
    expect(await r.transport.pushWidget('phone', widget())).toEqual({ outcome: 'refused', reason: 'SENDER_ID_MISMATCH' });
    expect(await r.registry.tokenOf('phone')).toBe(TOKENS.phone);
    expect(r.transport.counters()).toMatchObject({ dropped: 1, retried: 0, tokensRemoved: 0 });
  });

  it('a retry that would land past the TTL drops the push', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'QUOTA_EXCEEDED', retryAfter: '3600' } });
    expect(await r.transport.pushWidget('phone', widget())).toEqual({ outcome: 'dropped', reason: 'expired: QUOTA_EXCEEDED' });
    expect(r.double.received).toHaveLength(1);
    expect(r.transport.counters()).toMatchObject({ sent: 0, retried: 0, dropped: 1 });
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it('a device waiting for a retry or a stalled answer delays no other device', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ token: TOKENS.phone, answer: { error: 'QUOTA_EXCEEDED' } });
    r.double.answer({ token: TOKENS.phone, answer: 'stall' });
    const waiting = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry to be planned');
    const stalled = r.transport.pushActivity('phone', activity('start', T0));
    await r.double.waitForRequests(2);
    expect(await r.transport.pushWidget('other', widget())).toBe('delivered');
    expect(await r.transport.pushActivity('other', activity('start', T0))).toBe('delivered');
    r.double.releaseStalled();
    expect(await stalled).toBe('delivered');
    r.clock.advance(MIN + 250);
    expect(await waiting).toBe('delivered');
    expect(r.transport.counters()).toMatchObject({ sent: 4, retried: 1 });
  });

  it('close() drops pushes waiting for a retry, and the pushes still queued without looking them up', async () => {
    r = await rig({ connectionThread, maxConcurrentStreams: 1 });
    r.double.answer({ answer: { error: 'INTERNAL' } });
    r.double.answer({ answer: 'stall', times: 10 });
    const lookups = vi.spyOn(r.registry, 'tokenOf');
    const retrying = r.transport.pushWidget('phone', widget({ slug: 'first' }));
    await until(() => r.transport.counters().retried === 1, 'the retry');
    const outcomes: Promise<unknown>[] = [];
    for (let i = 0; i < 6; i++) outcomes.push(r.transport.pushWidget('other', widget({ slug: `w${i}` })));
    await r.double.waitForRequests(2);
    await r.transport.close();
    const closed = { outcome: 'dropped', reason: 'transport closed' };
    expect(await retrying).toEqual(closed);
    expect(await Promise.all(outcomes)).toEqual(Array(6).fill(closed));
    expect(lookups.mock.calls.length).toBeLessThan(6);
    expect(r.transport.counters()).toMatchObject({ sent: 0, dropped: 7 });
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it('logs never carry a registration token, an access token or the key', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'UNREGISTERED' } });
    r.double.answer({ answer: { error: 'SENDER_ID_MISMATCH' } });
    r.double.answer({ answer: { error: 'UNAUTHENTICATED' }, times: 2 });
    await r.transport.pushWidget('phone', widget());
    await r.transport.pushWidget('other', widget());
    await r.transport.pushActivity('other', activity('start', T0));
    expect(r.logs.length).toBeGreaterThanOrEqual(3);
    const text = JSON.stringify(r.logs);
    for (const token of Object.values(TOKENS)) expect(text).not.toContain(token);
    for (const got of r.double.received) expect(text).not.toContain(got.accessToken!);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain('Bearer');
  });
});
