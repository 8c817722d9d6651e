/**
 * The reference server's `/metrics` with APNs on (issue 32 item 6): each push counted under
 * the outcome it had at APNs, and the APNs transport's own counters exported, on both stores.
 */
import type { Logger } from '@tilecast/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startApnsDemo, type ApnsDemo } from '../src/apns-demo.js';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { storeSettings } from './store-settings.js';
import { writeLightsSeed } from './fixtures.js';

const stores = storeSettings('apns_metrics');

const silent: Logger = { info() {}, warn() {}, error() {} };
const PHONES = [
  { id: 'kept-phone', token: 'dev_kept_phone', widgets: 'd4'.repeat(32) },
  { id: 'gone-phone', token: 'dev_gone_phone', widgets: 'e5'.repeat(32) },
];

const send = (method: string, url: string, authorization: string, body: unknown) =>
  fetch(url, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });

describe('reference server /metrics with APNs on', () => {
  let demo: ApnsDemo | undefined;
  let server: ReferenceServer | undefined;
  afterEach(async () => {
    await server?.close();
    await demo?.close();
    server = demo = undefined;
  });

  it.each(stores)(
    '%s store: a push APNs refused is counted as it came out, not delivered, and the transport counters are exported',
    async (_name, storeEnv) => {
      demo = await startApnsDemo();
      const seed = await writeLightsSeed(demo.dir, PHONES);
      demo.double.answer({ token: PHONES[1]!.widgets, answer: { status: 410, reason: 'Unregistered' } });
      const env = { PORT: '0', HOST: '127.0.0.1', TILECAST_SEED: seed, TILECAST_METRICS: '1', ...storeEnv(), ...demo.env };
      server = await startReferenceServer(readConfig(env), silent);
      for (const phone of PHONES) {
        const registered = await send('PUT', `${server.url}/device/push`, `Device ${phone.token}`, { environment: 'sandbox', widgets: phone.widgets });
        expect(registered.status).toBe(204);
      }
      const patched = await send('PATCH', `${server.url}/widget/lights`, 'Token tok_acme_1', {
        content: { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] },
      });
      expect(patched.status).toBe(200);
      await server.tilecast.idle();
      expect(demo.double.received.map((push) => push.status).sort()).toEqual([200, 410]);

      const text = await (await fetch(server.metricsUrl!)).text();
      expect(text).toContain('tilecast_device_pushes_total{transport="apns",kind="widget",outcome="delivered"} 1');
      expect(text).toContain('tilecast_device_pushes_total{transport="apns",kind="widget",outcome="token_removed"} 1');
      expect(text).toContain('tilecast_transport_events_total{transport="apns",event="sent"} 1');
      expect(text).toContain('tilecast_transport_events_total{transport="apns",event="tokens_removed"} 1');
      expect(text).toContain('tilecast_transport_events_total{transport="apns",event="dropped"} 0');
      for (const phone of PHONES) expect(text).not.toContain(phone.widgets);
    },
  );
});
