import type { PushOutcome } from '@tilecast/core';
import { createMemoryApnsRegistry } from '@tilecast/transport-apns';
import { startApnsDouble } from '@tilecast/transport-apns/test-double';
import { outcomeOf } from '@tilecast/core/push';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../../test/support/manual-clock.js';
import { CONNECTION_THREADS, activity, BUNDLE_ID, flush, KEY_ID, rig, T0, TEAM_ID, testSigningKey, transportTo, until, widget, type Rig } from './support.js';

// A stalled APNs (docs/contract/apns.md#apns-latest-wins): 300 devices, about 23 updates of
// one activity per second and 10 widget updates during 45 s without an answer.
const DEVICES = 300;
const STALL_MS = 45_000;
const ACTIVITY_UPDATES = 1_035;
const WIDGET_UPDATES = 10;
const STEP_MS = STALL_MS / ACTIVITY_UPDATES;
/** The activity updates the widget updates come with, spread over the stall. */
const WIDGET_STEPS = Array.from({ length: WIDGET_UPDATES }, (_, k) => Math.floor((k * ACTIVITY_UPDATES) / WIDGET_UPDATES));
const STREAMS = 100;
/** Turns of the event loop between two updates (pacing runs one batch per turn). */
const TURNS_PER_STEP = 4;

const hex = (n: number) => n.toString(16).padStart(8, '0').repeat(8);
const activityToken = (device: number) => hex(2 * device);
const widgetToken = (device: number) => hex(2 * device + 1);
const timestampOf = (payload: unknown) => (payload as { aps: { timestamp?: number } }).aps.timestamp;

describe.each(CONNECTION_THREADS)(
  'transport-apns: a newer push takes the place of an older one waiting for a stream (connections on the %s thread)',
  (connectionThread) => {
    let r: Rig;
    afterEach(() => r?.close());

    it('the older one is never sent and settles superseded; the newer one goes out in its place', async () => {
      r = await rig({ connectionThread, maxConcurrentStreams: 1 });
      r.double.answer({ answer: 'stall' });
      const stalled = r.transport.pushWidget('phone', widget()); // holds the only stream
      await r.double.waitForRequests(1);
      const older = r.transport.pushActivity('phone', activity('update', T0 + 1_000));
      await until(() => Object.values(r.transport.load())[0]?.waiting === 1, 'the update waiting for a stream');
      const newer = r.transport.pushActivity('phone', activity('update', T0 + 2_000));
      expect(await older).toBe('superseded');
      expect(Object.values(r.transport.load())[0]?.waiting).toBe(1);
      r.double.releaseStalled();
      expect(await Promise.all([stalled, newer])).toEqual(['delivered', 'delivered']);
      expect(r.double.received.map((push) => timestampOf(push.payload) ?? 'widgets')).toEqual(['widgets', T0 / 1000 + 2]);
      expect(r.transport.counters()).toMatchObject({ sent: 2, superseded: 1, dropped: 0 });
      expect(r.transport.backlog()).toEqual({ queued: 0, working: 0, retrying: 0, keys: 0 });
    });

    it('one already on a stream is answered before the newer one is sent, so they arrive in order', async () => {
      r = await rig({ connectionThread, maxConcurrentStreams: 4 });
      r.double.answer({ answer: 'stall' });
      const older = r.transport.pushActivity('phone', activity('update', T0 + 1_000));
      await r.double.waitForRequests(1);
      const newer = r.transport.pushActivity('phone', activity('update', T0 + 2_000));
      const newest = r.transport.pushActivity('phone', activity('update', T0 + 3_000));
      // Streams are free, yet the newer ones wait for the older one's answer, the newest in the newer one's place.
      expect(await newer).toBe('superseded');
      await until(() => Object.values(r.transport.load())[0]?.waiting === 1, 'the newest held for the older stream');
      expect(Object.values(r.transport.load())[0]).toEqual({ active: 1, waiting: 1 });
      expect(r.double.received).toHaveLength(1);
      r.double.releaseStalled();
      expect(await Promise.all([older, newest])).toEqual(['delivered', 'delivered']);
      expect(r.double.received.map((push) => timestampOf(push.payload))).toEqual([T0 / 1000 + 1, T0 / 1000 + 3]);
      expect(r.transport.counters()).toMatchObject({ sent: 2, superseded: 1, dropped: 0 });
    });
  },
);

describe('transport-apns: a stalled APNs keeps one push per device and resource (docs/contract/apns.md#apns-latest-wins)', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
  });

  it('45 s of stall with 23 activity updates/s and 10 widget updates: bounded backlog, then at most one push per device and resource, the latest', async () => {
    const clock = createManualClock(T0);
    const { privateKey, publicKey } = testSigningKey();
    const double = await startApnsDouble({ teamId: TEAM_ID, keyId: KEY_ID, bundleId: BUNDLE_ID, publicKey, clock });
    cleanup.push(() => double.close());
    const registry = createMemoryApnsRegistry();
    for (let d = 0; d < DEVICES; d++) {
      registry.register(`phone-${d}`, { environment: 'sandbox', widgets: widgetToken(d) });
      registry.setActivityToken(`phone-${d}`, 'acme', 'build', activityToken(d));
    }
    const transport = transportTo(double, registry, privateKey, { clock, connectionThread: 'main', random: () => 0.5, maxConcurrentStreams: STREAMS });
    cleanup.push(() => transport.close());

    const outcomes: Record<string, number> = {};
    let handed = 0;
    let settled = 0;
    const count = (outcome: PushOutcome) => {
      settled += 1;
      outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
    };
    /** Per device, what came of the last update of the activity and of the widget. */
    const lastActivity = new Map<number, PushOutcome>();
    const lastWidget = new Map<number, PushOutcome>();
    const peak = { held: 0, keys: 0, unsettled: 0 };

    double.stallAll();
    for (let u = 0; u < ACTIVITY_UPDATES; u++) {
      clock.advance(STEP_MS);
      const update = activity('update', clock.now(), { updated_at: new Date(clock.now()).toISOString() });
      const widgetUpdate = WIDGET_STEPS.indexOf(u);
      const content = widget({ content: { template: 'gauge', value: widgetUpdate }, updated_at: new Date(clock.now()).toISOString() });
      for (let d = 0; d < DEVICES; d++) {
        handed += 1;
        const sent = transport.pushActivity(`phone-${d}`, update);
        void sent.then((result) => count(outcomeOf(result)));
        if (u === ACTIVITY_UPDATES - 1) void sent.then((outcome) => lastActivity.set(d, outcomeOf(outcome)));
        if (widgetUpdate < 0) continue;
        handed += 1;
        const pushed = transport.pushWidget(`phone-${d}`, content);
        void pushed.then((result) => count(outcomeOf(result)));
        if (widgetUpdate === WIDGET_UPDATES - 1) void pushed.then((outcome) => lastWidget.set(d, outcomeOf(outcome)));
      }
      for (let turn = 0; turn < TURNS_PER_STEP; turn++) await new Promise((resolve) => setImmediate(resolve));
      const { queued, working, retrying, keys } = transport.backlog();
      peak.held = Math.max(peak.held, queued + working + retrying);
      peak.keys = Math.max(peak.keys, keys);
      peak.unsettled = Math.max(peak.unsettled, handed - settled);
    }
    expect(handed).toBe(DEVICES * (ACTIVITY_UPDATES + WIDGET_UPDATES));
    // What is held is bounded by the (device, resource) pairs, not by the 313,500 pushes:
    // the newest push of each pair, plus pushes already on a stream (sent, waiting for an
    // answer that does not come), plus, per pair, the push in the stream queue that the
    // newest is on its way to replace (docs/decisions/0111-apns-latest-wins.md).
    const pairs = 2 * DEVICES;
    console.info(`stall: ${handed} pushes handed over; peak held ${peak.held}, keys ${peak.keys}, unsettled ${peak.unsettled}; ${JSON.stringify(outcomes)}`);
    expect(peak.keys).toBeLessThanOrEqual(pairs);
    expect(peak.held).toBeLessThanOrEqual(2 * pairs + STREAMS);
    expect(peak.unsettled).toBeLessThanOrEqual(2 * pairs + STREAMS);

    // APNs recovers: what was on a stream is answered, what waited goes out.
    const recoveredAt = double.received.length;
    double.stallAll(false);
    double.releaseStalled();
    for (let i = 0; i < 20_000 && settled < handed; i++) {
      await flush();
      // Time moves only while no stream is open, so that no answer on its way times out.
      const streams = Object.values(transport.load()).reduce((open, load) => open + load.active, 0);
      if (streams === 0) clock.advance(250);
      else await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(settled).toBe(handed);
    expect(transport.backlog()).toEqual({ queued: 0, working: 0, retrying: 0, keys: 0 });

    const after = double.received.slice(recoveredAt);
    const perToken = new Map<string, number>();
    for (const push of after) perToken.set(push.deviceToken, (perToken.get(push.deviceToken) ?? 0) + 1);
    expect(Math.max(...perToken.values())).toBe(1);
    expect(after.every((push) => push.status === 200)).toBe(true);
    // Every device has the latest content: the last update of each was delivered...
    expect([...lastActivity.values()].filter((outcome) => outcome === 'delivered')).toHaveLength(DEVICES);
    expect([...lastWidget.values()].filter((outcome) => outcome === 'delivered')).toHaveLength(DEVICES);
    // ...and no device was ever sent an older activity time after a newer one.
    const lastTime = new Map<string, number>();
    for (const push of double.received) {
      const at = timestampOf(push.payload);
      if (at === undefined) continue;
      expect(at).toBeGreaterThanOrEqual(lastTime.get(push.deviceToken) ?? 0);
      lastTime.set(push.deviceToken, at);
    }
    console.info(`recovery: ${after.length} pushes sent (${perToken.size} tokens), ${double.received.length - after.length} requests during the stall`);
  }, 120_000);
});
