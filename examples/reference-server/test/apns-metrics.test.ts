/**
 * The reference server's `/metrics` with APNs on (issue 32 item 6): each push counted under
 * the outcome it had at APNs, and the APNs transport's own counters exported, on both stores.
 */
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '@tilecast/core';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startApnsDemo, type ApnsDemo } from '../src/apns-demo.js';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';

const DATABASE_URL = process.env.DATABASE_URL || undefined;
const schemas: string[] = [];
const stores: Array<[string, () => Record<string, string>]> = [
  ['memory', () => ({ DATABASE_URL: '' })],
  ...(DATABASE_URL
    ? [
        [
          'PostgreSQL',
          () => {
            const schema = `apns_metrics_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
            schemas.push(schema);
            return { DATABASE_URL, TILECAST_DATABASE_SCHEMA: schema };
          },
        ] as [string, () => Record<string, string>],
      ]
    : []),
];

afterAll(async () => {
  if (schemas.length === 0) return;
  const admin = new pg.Pool({ connectionString: DATABASE_URL });
  for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  await admin.end();
});

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
      const seed = join(demo.dir, 'seed.json');
      await writeFile(
        seed,
        JSON.stringify({
          accounts: [
            {
              id: 'acme',
              token: 'tok_acme_1',
              devices: PHONES.map(({ id, token }) => ({ id, token })),
              widgets: [{ slug: 'lights', template: 'switchboard', stale_after: null, privacy: 'visible' }],
            },
          ],
        }),
      );
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
