import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createTilecast, silentLogger, type DeviceTransport } from '../../src/index.js';
import { FANOUT_SLICE } from '../../src/devices/fanout.js';

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
});
