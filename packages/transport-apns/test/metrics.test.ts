/**
 * Push metrics that tell the truth (issue 32 item 6): through Tilecast's fan-out, a push
 * APNs refuses or that is given up is counted under the outcome it had, never as
 * `delivered`, and the transport's own counters are exported beside it.
 */
import { createTilecast, type Tilecast } from '@tilecast/core';
import { createTilecastMetrics } from '@tilecast/metrics';
import { createMemoryStorage } from '@tilecast/storage-memory';
import type { Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTION_THREADS, rig, until, type Rig } from './support.js';

const silent = { info() {}, warn() {}, error() {} };
const gauge = { content: { template: 'gauge', value: 20, unit: '°C', label: 'Boiler' } };

/** The value of counter `name`'s sample with exactly these labels (0 when absent). */
async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const { values } = await registry.getSingleMetric(name)!.get();
  const same = (found: Partial<Record<string, string | number>>) =>
    Object.keys(found).length === Object.keys(labels).length && Object.entries(labels).every(([key, value]) => found[key] === value);
  return values.find((value) => same(value.labels))?.value ?? 0;
}

/** Tilecast with the rig's transport and metrics, `acme`'s phone (the rig's `phone`) shown the widget `boiler`. */
async function tilecastOn(r: Rig): Promise<{ tilecast: Tilecast; registry: Registry; publish: () => Promise<void> }> {
  const storage = createMemoryStorage();
  const metrics = createTilecastMetrics({ transports: [r.transport] });
  const tilecast = createTilecast({ storage, clock: r.clock, transport: r.transport, observer: metrics.observer, logger: silent, purgeIntervalMs: 0 });
  const { token } = await tilecast.management.createAccount({ id: 'acme' });
  await tilecast.management.registerDevice({ id: 'phone', account: 'acme' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'boiler', template: 'gauge' });
  const publish = async () => {
    const answer = await tilecast.handle({
      method: 'PATCH',
      path: '/widget/boiler',
      query: new URLSearchParams(),
      headers: { 'content-type': 'application/json', authorization: `Token ${token}` },
      body: { kind: 'parsed', value: gauge },
    });
    expect(answer).toMatchObject({ status: 200 });
  };
  return { tilecast, registry: metrics.registry, publish };
}

const pushes = (registry: Registry, outcome: string) => sample(registry, 'tilecast_device_pushes_total', { transport: 'apns', kind: 'widget', outcome });
const events = (registry: Registry, event: string) => sample(registry, 'tilecast_transport_events_total', { transport: 'apns', event });

describe.each(CONNECTION_THREADS)('APNs push metrics, as each push came out (connections on the %s thread)', (connectionThread) => {
  let r: Rig;
  let tilecast: Tilecast | undefined;
  afterEach(async () => {
    await tilecast?.close();
    tilecast = undefined;
    await r?.close();
  });

  /** Lets the transport retry twice (at 750 ms, then 1.5 s later), as a push that keeps failing does. */
  const throughBothRetries = async (): Promise<void> => {
    await until(() => r.transport.counters().retried === 1, 'the first retry');
    r.clock.advance(750);
    await until(() => r.transport.counters().retried === 2, 'the second retry');
    r.clock.advance(1_500);
  };

  it('200: delivered, and counted sent', async () => {
    r = await rig({ connectionThread });
    const on = await tilecastOn(r);
    tilecast = on.tilecast;
    await on.publish();
    await tilecast.idle();
    expect(await pushes(on.registry, 'delivered')).toBe(1);
    expect(await events(on.registry, 'sent')).toBe(1);
  });

  it.each([
    ['410 Unregistered', 'token_removed', { status: 410, reason: 'Unregistered' }, 'tokens_removed'],
    ['403 InvalidProviderToken', 'refused', { status: 403, reason: 'InvalidProviderToken' }, 'dropped'],
  ])('%s: not delivered, but %s', async (_name, outcome, answer, event) => {
    r = await rig({ connectionThread });
    r.double.answer({ answer });
    const on = await tilecastOn(r);
    tilecast = on.tilecast;
    await on.publish();
    await tilecast.idle();
    expect(await pushes(on.registry, 'delivered')).toBe(0);
    expect(await pushes(on.registry, outcome)).toBe(1);
    expect(await events(on.registry, event)).toBe(1);
    expect(await events(on.registry, 'sent')).toBe(0);
  });

  it('500 on every attempt: not delivered, but dropped once the retries are used up', async () => {
    r = await rig({ connectionThread });
    r.double.answer({ answer: { status: 500, reason: 'InternalServerError' }, times: 3 });
    const on = await tilecastOn(r);
    tilecast = on.tilecast;
    await on.publish();
    await throughBothRetries();
    await tilecast.idle();
    expect(await pushes(on.registry, 'delivered')).toBe(0);
    expect(await pushes(on.registry, 'dropped')).toBe(1);
    expect([await events(on.registry, 'retried'), await events(on.registry, 'dropped'), await events(on.registry, 'sent')]).toEqual([2, 1, 0]);
  });

  it('a certificate the client does not trust: not delivered, but dropped once the retries are used up', async () => {
    r = await rig({ connectionThread, ca: undefined });
    const on = await tilecastOn(r);
    tilecast = on.tilecast;
    await on.publish();
    await throughBothRetries();
    await tilecast.idle();
    expect(r.double.received).toHaveLength(0);
    expect(await pushes(on.registry, 'delivered')).toBe(0);
    expect(await pushes(on.registry, 'dropped')).toBe(1);
    expect([await events(on.registry, 'retried'), await events(on.registry, 'dropped'), await events(on.registry, 'sent')]).toEqual([2, 1, 0]);
  });
});
