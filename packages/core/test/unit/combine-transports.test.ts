import { describe, expect, it } from 'vitest';
import { combineTransports, createSseDeviceTransport } from '../../src/devices/sse-device-transport.js';
import type { DeviceTransport, WidgetPush } from '../../src/transport/device-transport.js';

const push: WidgetPush = { owner: 'acme', slug: 'lights', content: {}, stale_after: null, updated_at: '2026-11-26T08:00:00.000Z', privacy: 'visible' };

/** A transport whose widget pushes settle when the test says so. */
function manual(): DeviceTransport & { calls: string[]; settle(index: number, error?: Error): void } {
  const calls: string[] = [];
  const settlers: Array<(error?: Error) => void> = [];
  return {
    calls,
    settle: (index, error) => settlers[index]!(error),
    pushActivity: async () => {},
    pushWidget: (deviceId) => {
      calls.push(deviceId);
      return new Promise<void>((resolve, reject) => settlers.push((error) => (error ? reject(error) : resolve())));
    },
  };
}

const outcome = (sent: Promise<unknown>) =>
  sent.then(
    () => 'ok',
    (error: Error) => error.message,
  );

describe('combined device transports', () => {
  it('hands every push to each transport and settles once all did, with the first failure', async () => {
    const [a, b] = [manual(), manual()];
    const combined = combineTransports([a, b]);
    let settled = false;
    const sent = outcome(combined.pushWidget('phone-1', push)).finally(() => (settled = true));
    expect([a.calls, b.calls]).toEqual([['phone-1'], ['phone-1']]);
    b.settle(0, new Error('b failed'));
    await Promise.resolve();
    expect(settled).toBe(false);
    a.settle(0, new Error('a failed'));
    expect(await sent).toBe('a failed');

    const second = outcome(combined.pushWidget('phone-2', push));
    a.settle(1);
    b.settle(1, new Error('b failed'));
    expect(await second).toBe('b failed');
  });

  it('still calls the others when one throws, and fails the push with that error', async () => {
    const throwing: DeviceTransport = {
      pushActivity: async () => {},
      pushWidget: () => {
        throw new Error('thrown');
      },
    };
    const other = manual();
    const sent = outcome(combineTransports([throwing, other]).pushWidget('phone-1', push));
    expect(other.calls).toEqual(['phone-1']);
    other.settle(0);
    expect(await sent).toBe('thrown');
  });

  it('answers with the host transport alone when the device stream delivered', async () => {
    const host = manual();
    const sent = outcome(combineTransports([createSseDeviceTransport(), host]).pushWidget('phone-1', push));
    host.settle(0, new Error('host failed'));
    expect(await sent).toBe('host failed');
  });
});
