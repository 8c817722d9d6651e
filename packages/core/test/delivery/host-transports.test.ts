import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../test/support/manual-clock.js';
import type { CoreRequest } from '../../src/adapter.js';
import {
  createTilecast,
  DEVICE_STREAM_TRANSPORT,
  silentLogger,
  type ActivityPush,
  type DeviceTransport,
  type PushObservation,
  type PushResult,
  type Storage,
  type Observer,
} from '../../src/index.js';

// Devices: `both` registered an APNs and an FCM token, `iphone` only APNs, `android` only FCM.
const DEVICES = ['both', 'iphone', 'android', 'neither'];

const patchActivity = (token: string, score: number): CoreRequest => ({
  method: 'PATCH',
  path: '/activity/game',
  query: new URLSearchParams(),
  headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
  body: { kind: 'parsed', value: { state: 'ONGOING', content: { template: 'progress', progress: { value: score / 10 } } } },
});

/**
 * A host transport that reaches the devices it has a token of (`skipped` for the others,
 * as transport-apns and transport-fcm do), and answers `answers[deviceId]` when given.
 */
function tokenTransport(name: string, tokens: readonly string[], answers: Record<string, PushResult> = {}) {
  const sent: Array<{ deviceId: string; phase: ActivityPush['phase'] }> = [];
  const transport: DeviceTransport = {
    name,
    pushActivity(deviceId, push) {
      if (!tokens.includes(deviceId)) return Promise.resolve('skipped');
      sent.push({ deviceId, phase: push.phase });
      return Promise.resolve(answers[deviceId] ?? 'delivered');
    },
    pushWidget: (deviceId) => Promise.resolve(tokens.includes(deviceId) ? 'delivered' : 'skipped'),
  };
  return { transport, sent };
}

async function seeded(instance: ReturnType<typeof createTilecast>): Promise<string> {
  const { token } = await instance.management.createAccount({ id: 'acme' });
  for (const id of DEVICES) await instance.management.registerDevice({ id, account: 'acme' });
  await instance.management.createActivity({ account: 'acme', slug: 'game', template: 'progress' });
  return token;
}

const instance = (storage: Storage, transport: DeviceTransport | readonly DeviceTransport[], observer?: Observer) =>
  createTilecast({ storage, transport, observer, clock: createManualClock(), logger: silentLogger, purgeIntervalMs: 0, delivery: { instanceId: 'a' } });

describe('several host transports (APNs and FCM at once)', () => {
  it('a push goes to every transport: a device with an APNs and an FCM token gets both', async () => {
    const storage = createMemoryStorage();
    const apns = tokenTransport('apns', ['both', 'iphone']);
    const fcm = tokenTransport('fcm', ['both', 'android']);
    const a = instance(storage, [apns.transport, fcm.transport]);
    const token = await seeded(a);
    expect(await a.handle(patchActivity(token, 1))).toMatchObject({ status: 200 });
    await a.idle();
    const byDevice = (sent: typeof apns.sent) => sent.map((push) => push.deviceId).sort();
    expect(byDevice(apns.sent)).toEqual(['both', 'iphone']);
    expect(byDevice(fcm.sent)).toEqual(['android', 'both']);
    expect((await storage.deliveryJobStats()).pending).toBe(0);
    await a.close();
  });

  it('each transport keeps its own dead letters, named after it, with its reason, also when observed', async () => {
    for (const observed of [false, true]) {
      const storage = createMemoryStorage();
      const settled: PushObservation[] = [];
      const apns = tokenTransport('apns', ['both', 'iphone'], { iphone: { outcome: 'dropped', reason: 'retries used up: status 503' } });
      const fcm = tokenTransport('fcm', ['both', 'android'], { both: { outcome: 'refused', reason: 'INVALID_ARGUMENT' }, android: 'token_removed' });
      const a = instance(storage, [apns.transport, fcm.transport], observed ? { pushSettled: (push: PushObservation) => void settled.push(push) } : undefined);
      const token = await seeded(a);
      await a.handle(patchActivity(token, 1));
      await a.idle();
      const letters = (await storage.listDeadLetters({ limit: 10 })).map(({ deviceId, transport, reason }) => ({ deviceId, transport, reason }));
      expect(letters.sort((x, y) => x.transport.localeCompare(y.transport))).toEqual([
        { deviceId: 'iphone', transport: 'apns', reason: 'dropped: retries used up: status 503' },
        { deviceId: 'both', transport: 'fcm', reason: 'refused: INVALID_ARGUMENT' },
      ]);
      if (observed) {
        // Each host transport under its own name (the device stream's are its own too).
        const seen = settled
          .filter(({ transport }) => transport !== DEVICE_STREAM_TRANSPORT)
          .map(({ transport, outcome }) => `${transport} ${outcome}`)
          .sort();
        expect(seen).toEqual([
          'apns delivered',
          'apns dropped',
          'apns skipped',
          'apns skipped',
          'fcm refused',
          'fcm skipped',
          'fcm skipped',
          'fcm token_removed',
        ]);
      }
      await a.close();
    }
  });

  it('one transport given alone, or in a list of one, is the same', async () => {
    for (const given of ['alone', 'list'] as const) {
      const storage = createMemoryStorage();
      const apns = tokenTransport('apns', ['both', 'iphone'], { both: { outcome: 'refused', reason: 'BadTopic' } });
      const a = instance(storage, given === 'alone' ? apns.transport : [apns.transport]);
      const token = await seeded(a);
      await a.handle(patchActivity(token, 1));
      await a.idle();
      expect(apns.sent).toHaveLength(2);
      expect((await storage.listDeadLetters({ limit: 10 })).map((letter) => `${letter.transport} ${letter.reason}`)).toEqual(['apns refused: BadTopic']);
      await a.close();
    }
  });
});
