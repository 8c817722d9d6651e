/**
 * Through Tilecast's fan-out (memory store): an activity's start, update and end and a
 * widget's throttled updates reach the FCM double as the messages of
 * docs/contract/android-fcm.md#fcm-message, and every outcome shows in `@tilecast/metrics`
 * as the APNs transport's do.
 */
import { createTilecast, type Tilecast } from '@tilecast/core';
import { createTilecastMetrics } from '@tilecast/metrics';
import { createMemoryStorage } from '@tilecast/storage-memory';
import type { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTION_THREADS, rig, TOKENS, until, type Rig } from './support.js';

const silent = { info() {}, warn() {}, error() {} };

/** The value of counter `name`'s sample with exactly these labels (0 when absent). */
async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const { values } = await registry.getSingleMetric(name)!.get();
  const same = (found: Partial<Record<string, string | number>>) =>
    Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([key, value]) => found[key] === value);
  return values.find((value) => same(value.labels))?.value ?? 0;
}

interface On {
  tilecast: Tilecast;
  metrics: Registry;
  patch: (path: string, body: unknown) => Promise<void>;
}

/** Tilecast with the rig's transport and metrics; `acme`'s phone (the rig's `phone`) shows its widget and activity. */
async function tilecastOn(r: Rig): Promise<On> {
  const storage = createMemoryStorage();
  const metrics = createTilecastMetrics({ transports: [r.transport] });
  const tilecast = createTilecast({ storage, clock: r.clock, transport: r.transport, observer: metrics.observer, logger: silent, purgeIntervalMs: 0 });
  const { token } = await tilecast.management.createAccount({ id: 'acme' });
  await tilecast.management.registerDevice({ id: 'phone', account: 'acme' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'boiler', template: 'gauge' });
  await tilecast.management.createActivity({ account: 'acme', slug: 'delivery', template: 'progress' });
  const patch = async (path: string, body: unknown) => {
    const answer = await tilecast.handle({
      method: 'PATCH',
      path,
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
      body: { kind: 'parsed', value: body },
    });
    expect(answer).toMatchObject({ status: 200 });
  };
  return { tilecast, metrics: metrics.registry, patch };
}

const progress = (value: number) => ({ template: 'progress', progress: { value }, header_left: { value: 'Sam' } });

describe.each(CONNECTION_THREADS)('transport-fcm through Tilecast (connection on the %s thread)', (connectionThread) => {
  let r: Rig;
  let tilecast: Tilecast | undefined;
  afterEach(async () => {
    await tilecast?.close();
    tilecast = undefined;
    await r?.close();
  });

  it('an activity PATCHed to start, update and end reaches the phone as three authorised data messages', async () => {
    r = await rig({ connectionThread });
    const on = await tilecastOn(r);
    tilecast = on.tilecast;
    await on.patch('/activity/delivery', { state: 'ONGOING', content: progress(0.1) });
    await tilecast.idle();
    r.clock.advance(1_000);
    await on.patch('/activity/delivery', { state: 'ONGOING', content: progress(0.6) });
    await tilecast.idle();
    r.clock.advance(1_000);
    await on.patch('/activity/delivery', { state: 'IDLE', content: progress(1) });
    await tilecast.idle();
    const got = r.double.received;
    expect(got.map((g) => [g.status, g.registrationToken])).toEqual([
      [200, TOKENS.phone],
      [200, TOKENS.phone],
      [200, TOKENS.phone],
    ]);
    expect(got.map((g) => g.data)).toMatchObject([
      { kind: 'activity', event: 'start', state: 'ONGOING', content: { progress: { value: 0.1 } }, dismissal_date: null },
      { kind: 'activity', event: 'update', state: 'ONGOING', content: { progress: { value: 0.6 } }, dismissal_date: null },
      { kind: 'activity', event: 'end', state: 'IDLE', content: { progress: { value: 1 } }, dismissal_date: expect.any(Number) },
    ]);
    expect(new Set(got.map((g) => g.accessToken)).size).toBe(1);
    expect(await sample(on.metrics, 'tilecast_device_pushes_total', { transport: 'fcm', kind: 'activity', outcome: 'delivered' })).toBe(3);
  });

  it('widget PATCHes inside the 2-second window reach the phone as one "changed" now and one after the window', async () => {
    r = await rig({ connectionThread });
    const on = await tilecastOn(r);
    tilecast = on.tilecast;
    await on.patch('/widget/boiler', { content: { template: 'gauge', value: 20 } });
    await on.patch('/widget/boiler', { content: { template: 'gauge', value: 21 } });
    await on.patch('/widget/boiler', { content: { template: 'gauge', value: 22 } });
    await until(() => r.double.received.length === 1, 'the first message');
    r.clock.advance(2_000);
    await until(() => r.double.received.length === 2, 'the message after the window');
    await tilecast.idle();
    expect(r.double.received.map((g) => g.data)).toMatchObject([
      { kind: 'widget', event: 'changed', owner: 'acme', slug: 'boiler' },
      { kind: 'widget', event: 'changed', owner: 'acme', slug: 'boiler' },
    ]);
    expect(await sample(on.metrics, 'tilecast_transport_events_total', { transport: 'fcm', event: 'sent' })).toBe(2);
    expect(await sample(on.metrics, 'tilecast_transport_events_total', { transport: 'fcm', event: 'access_tokens' })).toBe(1);
  });

  it('UNREGISTERED: not delivered but token_removed, counted as tokens_removed', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { error: 'UNREGISTERED' } });
    const on = await tilecastOn(r);
    tilecast = on.tilecast;
    await on.patch('/widget/boiler', { content: { template: 'gauge', value: 20 } });
    await tilecast.idle();
    const pushes = (outcome: string) => sample(on.metrics, 'tilecast_device_pushes_total', { transport: 'fcm', kind: 'widget', outcome });
    expect([await pushes('delivered'), await pushes('token_removed')]).toEqual([0, 1]);
    expect(await sample(on.metrics, 'tilecast_transport_events_total', { transport: 'fcm', event: 'tokens_removed' })).toBe(1);
  });
});
