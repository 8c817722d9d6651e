/**
 * Reconnecting with backoff (issue 32 item 7): an APNs host that turns every connection
 * away (GOAWAY on connect) gets a few connections, ever further apart, never a storm.
 */
import { systemClock } from '@tilecast/core';
import { afterEach, describe, expect, it } from 'vitest';
import { flush, rig, until, widget, type Rig } from './support.js';

describe('transport-apns: reconnecting to a host that turns connections away', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('a connection lost before any answer makes the next one wait on the clock: 750 ms, then 1.5 s (jitter 0.5)', async () => {
    // Retries come after 7.5 ms and 15 ms: what holds them back is the connection's wait.
    r = await rig({ retryBaseMs: 10 });
    r.double.goawayOnConnect();
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the first retry');
    await flush();
    expect(r.double.stats().connections).toBe(1);
    r.clock.advance(749);
    await flush();
    expect(r.double.stats().connections).toBe(1);
    r.clock.advance(1);
    await until(() => r.transport.counters().retried === 2, 'the second retry');
    await flush();
    expect(r.double.stats().connections).toBe(2);
    r.clock.advance(1_499);
    await flush();
    expect(r.double.stats().connections).toBe(2);
    r.clock.advance(1);
    await sending;
    expect(r.double.stats().connections).toBe(3);
    expect(r.transport.counters()).toMatchObject({ sent: 0, retried: 2, dropped: 1, reconnects: 2 });
  });

  it('pushes every 100 ms for 10 s: at most 5 connections, and a host that recovers is reached at the next one', async () => {
    r = await rig({ retryBaseMs: 10 });
    r.double.goawayOnConnect();
    const sending: Promise<unknown>[] = [];
    for (let i = 0; i < 100; i++) {
      sending.push(r.transport.pushWidget('phone', widget({ slug: `w${i}` })));
      await flush();
      r.clock.advance(100);
    }
    // Connections at 0, 0.75, 2.25, 5.25 s; the next one is due at 11.25 s.
    expect(r.double.stats().connections).toBeLessThanOrEqual(5);
    r.double.goawayOnConnect(false);
    r.clock.advance(2_000);
    await Promise.all(sending);
    expect(r.transport.counters().sent).toBeGreaterThan(0);
    expect(r.double.stats().connections).toBeLessThanOrEqual(6);
  });

  it('a connection lost after it answered is replaced at once, and the wait starts over', async () => {
    r = await rig({ retryBaseMs: 10 });
    await r.transport.pushWidget('other', widget());
    r.double.answer({ answer: 'goaway' });
    const sending = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry');
    r.clock.advance(8);
    await sending;
    expect(r.double.received.map((g) => [g.connection, g.status])).toEqual([
      [1, 200],
      [1, 0],
      [2, 200],
    ]);
  });

  it('with the connections in the worker thread (real time there): at most 4 connections in 1.5 s of pushes', async () => {
    // The worker has no clock to inject: this counts connection attempts over a short window.
    r = await rig({ connectionThread: 'worker', clock: systemClock, random: Math.random, retryBaseMs: 20 });
    r.double.goawayOnConnect();
    for (let i = 0; i < 75; i++) {
      void r.transport.pushWidget('phone', widget({ slug: `w${i}` }));
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(r.double.stats().connections).toBeGreaterThanOrEqual(1);
    expect(r.double.stats().connections).toBeLessThanOrEqual(4);
  });
});
