import { afterEach, describe, expect, it, vi } from 'vitest';
import { CONNECTION_THREADS, activity, flush, rig, T0, TOKENS, until, widget, type Rig } from './support.js';

describe.each(CONNECTION_THREADS)('transport-apns: answers (docs/contract/apns.md#apns-answers) (connections on the %s thread)', (connectionThread) => {
  let r: Rig;
  afterEach(() => r?.close());

  it.each([
    [410, 'Unregistered'],
    [400, 'BadDeviceToken'],
    [400, 'DeviceTokenNotForTopic'],
  ])('%i %s removes the token from the registry, never retried', async (status, reason) => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status, reason }, times: 3 });
    await r.transport.pushWidget('phone', widget());
    await r.transport.pushActivity('phone', activity('start', T0));
    await r.transport.pushActivity('phone', activity('update', T0 + 1000));
    expect(r.double.received.map((g) => [g.status, g.reason])).toEqual([
      [status, reason],
      [status, reason],
      [status, reason],
    ]);
    expect(await r.registry.registrationsOf('phone')).toEqual({ environment: 'sandbox', pushToStart: null, widgets: null, channels: false });
    expect(await r.registry.activityTokenOf('phone', 'acme', 'build')).toBeNull();
    expect(r.transport.counters()).toMatchObject({ tokensRemoved: 3, retried: 0, sent: 0, dropped: 0 });
    // The other device keeps its tokens.
    expect(await r.registry.registrationsOf('other')).toMatchObject({ pushToStart: TOKENS.otherStart, widgets: TOKENS.otherWidgets });
    // Removed tokens are not tried again.
    await r.transport.pushWidget('phone', widget());
    expect(r.double.received).toHaveLength(3);
  });

  it('429 is retried after its retry-after, not before', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 429, reason: 'TooManyRequests', retryAfter: '5' } });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry to be planned');
    r.clock.advance(4_999);
    await flush();
    expect(r.double.received).toHaveLength(1);
    r.clock.advance(500); // retry-after plus the jitter (0.5 of half the 1 s base)
    await sending;
    expect(r.double.received.map((g) => g.status)).toEqual([429, 200]);
    expect(r.transport.counters()).toMatchObject({ sent: 1, retried: 1, dropped: 0 });
  });

  it('a retry-after given as an HTTP date is honoured too', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 429, reason: 'TooManyRequests', retryAfter: new Date(T0 + 8_000).toUTCString() } });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry to be planned');
    r.clock.advance(7_999);
    await flush();
    expect(r.double.received).toHaveLength(1);
    r.clock.advance(251);
    await sending;
    expect(r.double.received.map((g) => g.status)).toEqual([429, 200]);
  });

  it('5xx is retried at most twice with a growing jittered backoff, then dropped', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 500, reason: 'InternalServerError' }, times: 3 });
    const sending = r.transport.pushActivity('phone', activity('update', T0));
    await until(() => r.transport.counters().retried === 1, 'the first retry');
    r.clock.advance(749);
    await flush();
    expect(r.double.received).toHaveLength(1);
    r.clock.advance(1); // 1 s base, jittered to 0.75 s
    await until(() => r.transport.counters().retried === 2, 'the second retry');
    r.clock.advance(1_499);
    await flush();
    expect(r.double.received).toHaveLength(2);
    r.clock.advance(1); // 2 s base, jittered to 1.5 s
    await sending;
    expect(r.double.received.map((g) => g.status)).toEqual([500, 500, 500]);
    expect(r.transport.counters()).toMatchObject({ sent: 0, retried: 2, dropped: 1 });
    expect(r.logs.some((l) => l.level === 'warn' && l.message === 'apns: push dropped (retries used up)')).toBe(true);
  });

  it('503 then 200: delivered on the retry', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 503, reason: 'ServiceUnavailable' } });
    const sending = r.transport.pushActivity('phone', activity('start', T0));
    await until(() => r.transport.counters().retried === 1, 'the retry');
    r.clock.advance(750);
    await sending;
    expect(r.double.received.map((g) => g.status)).toEqual([503, 200]);
    expect(r.transport.counters()).toMatchObject({ sent: 1, retried: 1 });
  });

  it('a retry that would land past the expiration drops the push', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 429, reason: 'TooManyRequests', retryAfter: '3600' } });
    await r.transport.pushWidget('phone', widget());
    expect(r.double.received).toHaveLength(1);
    expect(r.transport.counters()).toMatchObject({ sent: 0, retried: 0, dropped: 1 });
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it('other refusals are dropped without a retry', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 400, reason: 'BadCollapseId' } });
    r.double.answer({ answer: { status: 403, reason: 'InvalidProviderToken' } });
    await r.transport.pushWidget('phone', widget());
    await r.transport.pushWidget('other', widget());
    expect(r.double.received).toHaveLength(2);
    expect(r.transport.counters()).toMatchObject({ dropped: 2, retried: 0, tokensRemoved: 0 });
    expect(r.logs.some((l) => l.level === 'error' && l.fields?.reason === 'InvalidProviderToken')).toBe(true);
  });

  it('a newer push for the same activity makes an older one waiting to retry give way at once', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 500 } });
    const older = r.transport.pushActivity('phone', activity('update', T0));
    await until(() => r.transport.counters().retried === 1, 'the retry');
    expect(r.transport.backlog()).toMatchObject({ retrying: 1, keys: 1 });
    const newer = r.transport.pushActivity('phone', activity('update', T0 + 1000));
    expect(await older).toBe('superseded'); // the clock has not moved
    expect(await newer).toBe('delivered');
    expect(r.clock.pendingTimers()).toBe(0);
    expect(r.double.received.map((g) => (g.payload as { aps: { timestamp: number } }).aps.timestamp)).toEqual([T0 / 1000, T0 / 1000 + 1]);
    expect(r.transport.counters()).toMatchObject({ sent: 1, superseded: 1, dropped: 0 });
  });

  it('a device waiting for a retry or a stalled answer delays no other device', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ token: TOKENS.widgets, answer: { status: 429, retryAfter: '60' } });
    r.double.answer({ token: TOKENS.start, answer: 'stall' });
    const waiting = r.transport.pushWidget('phone', widget());
    const stalled = r.transport.pushActivity('phone', activity('start', T0));
    await r.double.waitForRequests(2);
    await r.transport.pushWidget('other', widget());
    await r.transport.pushActivity('other', activity('start', T0));
    expect(r.transport.counters()).toMatchObject({ sent: 2 });
    r.double.releaseStalled();
    await stalled;
    r.clock.advance(60_500);
    await waiting;
    expect(r.transport.counters()).toMatchObject({ sent: 4, retried: 1 });
  });

  it('close() drops pushes waiting for a retry', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 500 } });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry');
    await r.transport.close();
    await sending;
    expect(r.transport.counters()).toMatchObject({ sent: 0, dropped: 1 });
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it('close() ends a stalled push at once, and drops the pushes still queued without looking them up', async () => {
    // Two pushes at work (2 × maxConcurrentStreams), four queued behind them.
    r = await rig({ connectionThread, maxConcurrentStreams: 1 });
    r.double.answer({ answer: 'stall', times: 10 });
    const lookups = vi.spyOn(r.registry, 'registrationsOf');
    let settled = 0;
    for (let i = 0; i < 6; i++) void r.transport.pushWidget('phone', widget({ slug: `w${i}` })).then(() => (settled += 1));
    await r.double.waitForRequests(1);
    await until(() => lookups.mock.calls.length === 2, 'the pushes at work to be looked up');
    await r.transport.close();
    await until(() => settled === 6, 'every push to settle once closed');
    expect(lookups).toHaveBeenCalledTimes(2);
    expect(r.transport.counters()).toMatchObject({ sent: 0, dropped: 6 });
  });

  it('logs never carry a device token or the signing key', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 410, reason: 'Unregistered' } });
    r.double.answer({ answer: { status: 400, reason: 'BadCollapseId' } });
    r.double.answer({ answer: { status: 403, reason: 'InvalidProviderToken' } });
    await r.transport.pushWidget('phone', widget());
    await r.transport.pushActivity('phone', activity('start', T0));
    await r.transport.pushActivity('phone', activity('update', T0));
    expect(r.logs.length).toBeGreaterThanOrEqual(3);
    const text = JSON.stringify(r.logs);
    for (const token of Object.values(TOKENS)) expect(text).not.toContain(token);
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain('bearer');
  });
});

describe('transport-apns: the test double holds answers when told (delayAnswers)', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('a held push is recorded on arrival as delayed, then as answered once the delay is over', async () => {
    r = await rig();
    r.double.delayAnswers(50);
    const started = performance.now();
    const sending = r.transport.pushWidget('phone', widget());
    await r.double.waitForRequests(1);
    expect(r.double.received.map((g) => [g.status, g.reason])).toEqual([[0, 'delayed']]);
    expect(await sending).toBe('delivered');
    expect(performance.now() - started).toBeGreaterThanOrEqual(45);
    expect(r.double.received.map((g) => [g.status, g.reason])).toEqual([[200, null]]);
    r.double.delayAnswers(0);
    expect(await r.transport.pushWidget('other', widget())).toBe('delivered');
  });

  it('a held push whose stream closed first stays unanswered', async () => {
    r = await rig();
    r.double.delayAnswers(60_000);
    const sending = r.transport.pushWidget('phone', widget());
    await r.double.waitForRequests(1);
    await r.transport.close();
    expect(await sending).toMatchObject({ outcome: 'dropped' });
    await until(() => r.double.stats().openStreams === 0, 'the stream to close');
    expect(r.double.received.map((g) => [g.status, g.reason])).toEqual([[0, 'delayed']]);
  });
});
