import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createTilecast, silentLogger, type DeviceTransport } from '../../src/index.js';
import { FANOUT_SLICE, FANOUT_WINDOW } from '../../src/devices/fanout.js';

/** An account `acme` with `devices` phones and a switchboard widget `lights`; `publish()` updates it. */
async function fleet(devices: number, transport: DeviceTransport) {
  const storage = createMemoryStorage();
  const tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0, transport });
  const { token } = await tilecast.management.createAccount({ id: 'acme' });
  for (let i = 0; i < devices; i++) await tilecast.management.registerDevice({ id: `phone-${String(i).padStart(4, '0')}`, account: 'acme' });
  await tilecast.management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
  const publish = () =>
    tilecast.handle({
      method: 'PATCH',
      path: '/widget/lights',
      query: new URLSearchParams(),
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: { kind: 'parsed', value: { content: { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] } } },
    });
  return { tilecast, publish };
}

const turns = async (count: number) => {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('device fan-out to many devices', () => {
  it('hands the devices to the transport a slice per turn of the event loop, every one of them', async () => {
    const storage = createMemoryStorage();
    const handed: string[] = [];
    /** How many devices had been handed over when each turn of the event loop came. */
    const atTurns: number[] = [];
    const transport: DeviceTransport = {
      pushActivity: async () => {},
      pushWidget: async (deviceId) => {
        if (handed.length === 0) {
          const watch = () => {
            atTurns.push(handed.length);
            if (handed.length < devices) setImmediate(watch);
          };
          setImmediate(watch);
        }
        handed.push(deviceId);
      },
    };
    const tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0, transport });
    const { token } = await tilecast.management.createAccount({ id: 'acme' });
    const devices = 3 * FANOUT_SLICE + 5;
    for (let i = 0; i < devices; i++) await tilecast.management.registerDevice({ id: `phone-${String(i).padStart(4, '0')}`, account: 'acme' });
    await tilecast.management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
    const reply = await tilecast.handle({
      method: 'PATCH',
      path: '/widget/lights',
      query: new URLSearchParams(),
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: { kind: 'parsed', value: { content: { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] } } },
    });
    expect(reply).toMatchObject({ kind: 'json', status: 200 });
    await tilecast.idle();
    expect(handed).toHaveLength(devices);
    expect(new Set(handed).size).toBe(devices);
    // Other work ran after each slice, before the next one was handed over.
    expect(atTurns.slice(0, 3)).toEqual([FANOUT_SLICE, 2 * FANOUT_SLICE, 3 * FANOUT_SLICE]);
    await tilecast.close();
  });

  it('keeps at most FANOUT_WINDOW pushes of a fan-out unsettled: the rest waits as indexes, not as pushes', async () => {
    const waiting: Array<() => void> = [];
    const transport: DeviceTransport = {
      pushActivity: async () => {},
      pushWidget: () => new Promise<void>((resolve) => waiting.push(resolve)),
    };
    const devices = FANOUT_WINDOW + 3 * FANOUT_SLICE;
    const { tilecast, publish } = await fleet(devices, transport);
    expect(await publish()).toMatchObject({ status: 200 });
    await turns((2 * devices) / FANOUT_SLICE);
    expect(waiting).toHaveLength(FANOUT_WINDOW);
    // Each settled push lets one more device in, in the next turn.
    for (const settle of waiting.splice(0, 10)) settle();
    await turns(3);
    expect(waiting).toHaveLength(FANOUT_WINDOW);
    let settledTotal = 10;
    while (waiting.length > 0) {
      const batch = waiting.splice(0);
      settledTotal += batch.length;
      for (const settle of batch) settle();
      await turns((2 * devices) / FANOUT_SLICE);
    }
    expect(settledTotal).toBe(devices);
    await tilecast.idle();
    await tilecast.close();
  });
});
