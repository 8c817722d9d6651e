import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import type { CoreRequest } from '../../src/adapter.js';
import { createRecordingTransport, createTilecast, silentLogger } from '../../src/index.js';
import { createManualClock } from '../../../../test/support/manual-clock.js';

const patch = (token: string): CoreRequest => ({
  method: 'PATCH',
  path: '/widget/lights',
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
  body: { kind: 'parsed', value: { content: { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] } } },
});

async function setup(withTransport: boolean, clock = createManualClock()) {
  const storage = createMemoryStorage();
  const transport = createRecordingTransport();
  const tilecast = createTilecast({ storage, clock, logger: silentLogger, purgeIntervalMs: 0, transport: withTransport ? transport : undefined });
  const { token } = await tilecast.management.createAccount({ id: 'acme' });
  await tilecast.management.registerDevice({ id: 'phone', account: 'acme' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
  return { storage, transport, tilecast, token };
}

describe('device fan-out with nobody to reach', () => {
  it('leaves the job to the poller, which finishes it without looking devices up, when no transport is given and no device is connected (docs/contract/durable-delivery.md#durable-nobody-to-reach)', async () => {
    const clock = createManualClock();
    const { storage, tilecast, token } = await setup(false, clock);
    let lookups = 0;
    const listAccountDeviceIds = storage.listAccountDeviceIds.bind(storage);
    storage.listAccountDeviceIds = (accountId) => {
      lookups += 1;
      return listAccountDeviceIds(accountId);
    };
    // The update itself is stored and answered: only the fan-out has nobody to reach.
    expect(await tilecast.handle(patch(token))).toMatchObject({ kind: 'json', status: 200, body: { content: { template: 'switchboard' } } });
    await tilecast.idle();
    // Written, not claimed: any instance's next poll takes it.
    expect(await storage.deliveryJobStats()).toEqual({ pending: 1, oldestCreatedAt: clock.now() });
    clock.advance(2_000);
    for (let i = 0; i < 50 && (await storage.deliveryJobStats()).pending > 0; i++) await new Promise((resolve) => setImmediate(resolve));
    await tilecast.idle();
    expect(lookups).toBe(0);
    expect(await storage.deliveryJobStats()).toEqual({ pending: 0, oldestCreatedAt: null });
    await tilecast.close();
  });

  it('runs as usual with a host transport', async () => {
    const { storage, transport, tilecast, token } = await setup(true);
    expect(await tilecast.handle(patch(token))).toMatchObject({ kind: 'json', status: 200 });
    await tilecast.idle();
    expect(await storage.deliveryJobStats()).toEqual({ pending: 0, oldestCreatedAt: null });
    expect(transport.pushes.map((p) => p.deviceId)).toEqual(['phone']);
    await tilecast.close();
  });
});
