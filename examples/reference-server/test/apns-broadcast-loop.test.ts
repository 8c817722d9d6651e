/**
 * The reference server with a seeded broadcast activity against the APNs test double
 * (docs/contract/broadcast-channels.md#broadcast-reference-settings): channel management at
 * TILECAST_APNS_MANAGE_ORIGIN (a TCP proxy in front of the double, so that what went there
 * can be told from what went to TILECAST_APNS_ORIGIN), the phone registered over HTTP with
 * `"channels": true`, and an update that reaches the double as one signed broadcast.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@tilecast/core';
import { afterEach, describe, expect, it } from 'vitest';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import { DEMO_APNS_IDS, startApnsDemo, type ApnsDemo } from '../src/apns-demo.js';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { storeSettings } from './store-settings.js';

const stores = storeSettings('apnsbc');
const PUSH_TO_START = '5a'.repeat(32);
const UPDATE = '6b'.repeat(32);
const SEED = {
  accounts: [
    {
      id: 'acme',
      token: 'tok_acme_1',
      devices: [{ id: 'fan-phone', token: 'dev_fan_phone' }],
      activities: [{ slug: 'match', template: 'progress', dismissal_delay_s: 0, delivery: 'broadcast' }],
    },
  ],
};

/** Lets the server and the double work until `condition` holds (bounded: about 5 s). */
async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

describe('reference server: a seeded broadcast activity against the APNs double', () => {
  let demo: ApnsDemo | undefined;
  let server: ReferenceServer | undefined;
  let proxy: TcpProxy | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close();
    await proxy?.close();
    await demo?.close();
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    server = demo = proxy = dir = undefined;
  });

  const send = (method: string, url: string, authorization: string, body: unknown) =>
    fetch(url, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it.each(stores)('%s store: the update reaches the double as one broadcast, channels managed at TILECAST_APNS_MANAGE_ORIGIN', async (_name, storeEnv) => {
    demo = await startApnsDemo();
    const { double } = demo;
    proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(double.origin).port) });
    dir = await mkdtemp(join(tmpdir(), 'tilecast-broadcast-seed-'));
    const seedPath = join(dir, 'seed.json');
    await writeFile(seedPath, JSON.stringify(SEED));
    const manageOrigin = `https://127.0.0.1:${proxy.port}`;
    const warnings: string[] = [];
    const logger: Logger = { info() {}, error() {}, warn: (message: string) => void warnings.push(message) };
    const env = { PORT: '0', HOST: '127.0.0.1', ...storeEnv(), ...demo.env, TILECAST_SEED: seedPath, TILECAST_APNS_MANAGE_ORIGIN: manageOrigin };
    server = await startReferenceServer(readConfig(env), logger);
    expect(warnings).toContainEqual(expect.stringContaining('APNs channel management origin replaced'));
    // The start-up sweep's listing, answered before any channel is made (it cannot take one for an orphan).
    await until(() => double.channelRequests.length > 0, 'the start-up sweep');
    expect(double.channelRequests.map((q) => [q.method, q.path, q.status])).toEqual([['GET', `/1/apps/${DEMO_APNS_IDS.bundleId}/all-channels`, 200]]);

    const phone = 'Device dev_fan_phone';
    expect((await send('PUT', `${server.url}/device/push`, phone, { environment: 'sandbox', push_to_start: PUSH_TO_START, channels: true })).status).toBe(204);
    const progress = (value: number) => ({ state: 'ONGOING', content: { template: 'progress', progress: { value } } });
    expect((await send('PATCH', `${server.url}/activity/match`, 'Token tok_acme_1', progress(0.2))).status).toBe(200);
    await server.tilecast.idle();
    const made = double.channelRequests[1]!;
    expect(made).toMatchObject({ method: 'POST', status: 201, body: { 'message-storage-policy': 1, 'push-type': 'LiveActivity' } });
    const channelId = made.channelId!;
    expect(
      double.received.map((push) => [push.deviceToken, push.status, (push.payload as { aps: Record<string, unknown> }).aps['input-push-channel']]),
    ).toEqual([[PUSH_TO_START, 200, channelId]]);
    const listed = (await (await send('GET', `${server.url}/device/activities`, phone, undefined)).json()) as { activities: unknown[] };
    expect(listed.activities).toEqual([expect.objectContaining({ slug: 'match', channel_id: channelId })]);

    // The Live Activity reports an update token as well: the broadcast reaches the phone, so none is sent to it.
    expect((await send('PUT', `${server.url}/device/activities/acme/match/push`, phone, { token: UPDATE })).status).toBe(204);
    expect((await send('PATCH', `${server.url}/activity/match`, 'Token tok_acme_1', progress(0.6))).status).toBe(200);
    await server.tilecast.idle();
    expect(double.broadcasts).toHaveLength(1);
    expect(double.broadcasts[0]).toMatchObject({
      path: `/4/broadcasts/apps/${DEMO_APNS_IDS.bundleId}`,
      channelId,
      status: 200,
      headers: { 'apns-channel-id': channelId, 'apns-push-type': 'liveactivity', 'apns-priority': '10' },
      jwt: { header: { alg: 'ES256', kid: DEMO_APNS_IDS.keyId }, claims: { iss: DEMO_APNS_IDS.teamId } },
      payload: { aps: { event: 'update', 'content-state': { state: 'ONGOING', content: { template: 'progress', progress: { value: 0.6 } } } } },
    });
    expect(double.received).toHaveLength(1);
    // Management went through the proxy (TILECAST_APNS_MANAGE_ORIGIN), the broadcast to TILECAST_APNS_ORIGIN.
    const managing = new Set(double.channelRequests.map((q) => q.connection));
    expect(proxy.accepted).toBe(managing.size);
    expect(proxy.accepted).toBeGreaterThan(0);
    expect(managing.has(double.broadcasts[0]!.connection)).toBe(false);
  });
});
