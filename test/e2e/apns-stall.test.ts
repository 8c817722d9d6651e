/**
 * Through the core's fan-out (docs/contract/apns.md#apns-latest-wins): a publisher updates an
 * activity about 23 times a second and a widget 10 times while APNs answers nothing for
 * 45 s. Each update starts a fan-out to 300 devices; the pushes the transport holds stay
 * bounded by the (device, resource) pairs, the older fan-outs finish, and once APNs
 * recovers each device gets at most one push per resource, the latest.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createTilecast, silentLogger, type DeviceTransport, type PushOutcome, type PushReport } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { apnsRegistryFrom, createApnsTransport } from '@tilecast/transport-apns';
import { startApnsDouble } from '@tilecast/transport-apns/test-double';
import { afterEach, describe, expect, it } from 'vitest';
import { gaugeContent, progressUpdate } from '../support/fixtures.js';
import { createManualClock } from '../support/manual-clock.js';

const IDS = { teamId: 'TEAM123456', keyId: 'KEY7890ABC', bundleId: 'com.example.tilecast' };
const DEVICES = 300;
const STALL_MS = 45_000;
const ACTIVITY_UPDATES = 1_035;
const WIDGET_UPDATES = 10;
const STEP_MS = STALL_MS / ACTIVITY_UPDATES;
const WIDGET_STEPS = Array.from({ length: WIDGET_UPDATES }, (_, k) => Math.floor((k * ACTIVITY_UPDATES) / WIDGET_UPDATES));
const STREAMS = 100;
const TURNS_PER_STEP = 4;

const hex = (n: number) => n.toString(16).padStart(8, '0').repeat(8);
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('the core fan-out over transport-apns while APNs stalls (memory store)', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const close of cleanup.splice(0).reverse()) await close();
  });

  it('23 activity updates/s and 10 widget updates to 300 devices during 45 s of stall: bounded, then the latest once', async () => {
    const clock = createManualClock();
    const storage = createMemoryStorage();
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const double = await startApnsDouble({ ...IDS, publicKey, clock });
    cleanup.push(() => double.close());
    const apns = createApnsTransport({
      ...IDS,
      signingKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
      registry: apnsRegistryFrom(storage),
      origin: double.origin,
      ca: double.ca,
      clock,
      connectionThread: 'main',
      maxConcurrentStreams: STREAMS,
      random: () => 0.5,
    });
    cleanup.push(() => apns.close());
    // What the core has handed to the transport and not seen settle: its fan-outs' pushes.
    let handed = 0;
    let settled = 0;
    const lastOutcomes: PushOutcome[] = [];
    let lastUpdatedAt = new Set<string>();
    const counted =
      <P extends { updated_at: string }>(push: (id: string, p: P) => Promise<PushOutcome | PushReport>) =>
      (deviceId: string, p: P) => {
        handed += 1;
        const sent = push(deviceId, p);
        void sent.then((outcome) => {
          settled += 1;
          if (lastUpdatedAt.has(p.updated_at)) lastOutcomes.push(typeof outcome === 'string' ? outcome : outcome.outcome);
        });
        return sent;
      };
    const transport: DeviceTransport = { pushActivity: counted(apns.pushActivity), pushWidget: counted(apns.pushWidget) };
    const tilecast = createTilecast({ storage, clock, logger: silentLogger, transport });
    cleanup.push(() => tilecast.close());
    const m = tilecast.management;
    const { token } = await m.createAccount({ id: 'acme', activityQuota: 1 });
    await m.createActivity({ account: 'acme', slug: 'build', template: 'progress', dismissalDelayS: 30 });
    await m.createWidget({ account: 'acme', slug: 'boiler', template: 'gauge' });
    const publish = async (path: string, body: unknown) => {
      const reply = await tilecast.handle({
        method: 'PATCH',
        path,
        query: new URLSearchParams(),
        headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
        body: { kind: 'parsed', value: body },
      });
      expect(reply.kind === 'sse' ? 'a stream' : reply.status).toBe(200);
    };
    // Started before the phones register: the start finds no push-to-start token.
    await publish('/activity/build', progressUpdate(0));
    for (let d = 0; d < DEVICES; d++) {
      await m.registerDevice({ id: `phone-${d}`, account: 'acme' });
      await storage.setApnsRegistration(`phone-${d}`, { environment: 'sandbox', widgets: hex(2 * d + 1) });
      await storage.setActivityPushToken(`phone-${d}`, 'acme', 'build', hex(2 * d));
    }
    await tilecast.idle();
    handed = settled = 0;

    double.stallAll();
    const peak = { unsettled: 0, held: 0 };
    for (let u = 0; u < ACTIVITY_UPDATES; u++) {
      clock.advance(STEP_MS);
      const last = u === ACTIVITY_UPDATES - 1;
      const widgetUpdate = WIDGET_STEPS.indexOf(u);
      if (last || widgetUpdate === WIDGET_UPDATES - 1) lastUpdatedAt.add(new Date(clock.now()).toISOString());
      await publish('/activity/build', progressUpdate(u / ACTIVITY_UPDATES));
      if (widgetUpdate >= 0) await publish('/widget/boiler', { content: gaugeContent(widgetUpdate) });
      for (let turn = 0; turn < TURNS_PER_STEP; turn++) await nextTurn();
      const { queued, working, retrying } = apns.backlog();
      peak.held = Math.max(peak.held, queued + working + retrying);
      peak.unsettled = Math.max(peak.unsettled, handed - settled);
    }
    const pairs = 2 * DEVICES;
    expect(peak.held).toBeLessThanOrEqual(2 * pairs + STREAMS);
    // The older fan-outs finished: their pushes were superseded, not kept waiting.
    expect(peak.unsettled).toBeLessThanOrEqual(2 * pairs + STREAMS);
    console.info(
      `core stall: ${handed} pushes handed over by ${ACTIVITY_UPDATES + WIDGET_UPDATES} fan-outs during the stall; peak unsettled ${peak.unsettled}, held ${peak.held}`,
    );

    const recoveredAt = double.received.length;
    double.stallAll(false);
    double.releaseStalled();
    // Every job ends: the latest ones hand all their devices over; older ones stop once a
    // newer generation of their resource replaced them (docs/contract/durable-delivery.md#durable-supersede).
    const total = DEVICES * (ACTIVITY_UPDATES + WIDGET_UPDATES);
    const jobsPending = async () => (await storage.deliveryJobStats()).pending > 0;
    for (let i = 0; i < 20_000 && (settled < handed || (await jobsPending())); i++) {
      for (let turn = 0; turn < 5; turn++) await nextTurn();
      const streams = Object.values(apns.load()).reduce((open, load) => open + load.active, 0);
      if (streams === 0) clock.advance(250);
      else await new Promise((resolve) => setTimeout(resolve, 1));
    }
    expect(handed).toBeLessThanOrEqual(total);
    expect(settled).toBe(handed);
    await tilecast.idle();

    const perToken = new Map<string, number>();
    for (const push of double.received.slice(recoveredAt)) perToken.set(push.deviceToken, (perToken.get(push.deviceToken) ?? 0) + 1);
    expect(Math.max(...perToken.values())).toBe(1);
    // The last activity update and the last widget update reached every device.
    expect(lastOutcomes.filter((outcome) => outcome === 'delivered')).toHaveLength(2 * DEVICES);
    lastUpdatedAt = new Set();
  }, 120_000);
});
