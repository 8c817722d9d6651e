/**
 * The README's FCM walk-through, run by a test: the demo's double, service account and
 * CA, the reference server started with the `TILECAST_FCM_*` lines the demo prints, the
 * phone's registration token registered over HTTP, and PATCHes that reach the double as
 * authorised data messages (docs/contract/android-fcm.md#fcm-reference-settings). Then
 * APNs and FCM at once: one phone with both tokens gets each push from both doubles, both
 * transports are in `/metrics` and both are closed at shutdown.
 */
import { spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@tilecast/core';
import { afterEach, describe, expect, it } from 'vitest';
import { DEMO_PUSH_TOKENS, demoServerSettings, startApnsDemo, type ApnsDemo } from '../src/apns-demo.js';
import { readConfig } from '../src/config.js';
import { DEMO_FCM_PROJECT, DEMO_FCM_TOKEN, fcmDemoInstructions, startFcmDemo, type FcmDemo } from '../src/fcm-demo.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { storeSettings } from './store-settings.js';

const stores = storeSettings('fcm');

function recordingLogger() {
  const warnings: Array<{ message: string; fields: unknown }> = [];
  const infos: Array<{ message: string; fields: unknown }> = [];
  const logger: Logger = {
    info: (message: string, fields?: unknown) => void infos.push({ message, fields }),
    error() {},
    warn: (message: string, fields?: unknown) => void warnings.push({ message, fields }),
  };
  return { logger, warnings, infos };
}

const send = (method: string, url: string, authorization: string, body?: unknown) =>
  fetch(url, { method, headers: { authorization, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });

/** The row of `metric` in the README's table of metrics. */
function readmeMetricRow(metric: string): string {
  const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
  const row = readme.split('\n').find((line) => line.startsWith(`| \`${metric}\` |`));
  expect(row, `the README's metrics table has a row for ${metric}`).toBeDefined();
  return row!;
}

const tokensOf = (banner: string) => /API token (?<token>\S+)[\s\S]*device token (?<deviceToken>\S+)/.exec(banner)!.groups!;

interface Tilecast {
  kind: string;
  slug: string;
  event: string;
  state: string | null;
  content?: unknown;
}

describe('reference server with FCM against the test double', () => {
  let fcmDemo: FcmDemo | undefined;
  let apnsDemo: ApnsDemo | undefined;
  let server: ReferenceServer | undefined;
  afterEach(async () => {
    await server?.close();
    await fcmDemo?.close();
    await apnsDemo?.close();
    server = fcmDemo = apnsDemo = undefined;
  });

  it.each(stores)('%s store: start, update and end reach the double as authorised data messages, a widget as "changed"', async (_name, storeEnv) => {
    fcmDemo = await startFcmDemo();
    const { double } = fcmDemo;
    // The demo prints the settings as shell lines; the server is started with exactly those (on a free port).
    const printed = fcmDemoInstructions(demoServerSettings(fcmDemo.env, 8080));
    const env = Object.fromEntries([...printed.matchAll(/^ {3}((?:TILECAST_[A-Z_]+|PORT))=(\S+)/gm)].map((m) => [m[1]!, m[2]!]));
    expect(env).toEqual({ ...fcmDemo.env, PORT: '8080', TILECAST_DEMO: '1' });
    const { logger, warnings } = recordingLogger();
    server = await startReferenceServer(readConfig({ HOST: '127.0.0.1', ...storeEnv(), ...env, PORT: '0' }), logger);
    expect(warnings).toContainEqual({ message: expect.stringContaining('FCM origin replaced'), fields: { origin: double.origin } });
    expect(warnings).toContainEqual({ message: expect.stringContaining('FCM token origin replaced'), fields: { origin: double.origin } });
    expect(server.banner).toContain(`FCM delivery: on, to ${double.origin}`);
    expect(server.banner).toContain('APNs delivery: off');
    const { token, deviceToken } = tokensOf(server.banner);
    expect((await send('PUT', `${server.url}/device/fcm`, `Device ${deviceToken}`, { token: DEMO_FCM_TOKEN })).status).toBe(204);

    const steps = [
      { state: 'ONGOING', value: 0.4, event: 'start', priority: 'high' },
      { state: 'ONGOING', value: 0.8, event: 'update', priority: 'normal' },
      { state: 'IDLE', value: 1, event: 'end', priority: 'high' },
    ];
    for (const [at, step] of steps.entries()) {
      const content = { template: 'progress', progress: { value: step.value } };
      expect((await send('PATCH', `${server.url}/activity/build`, `Token ${token}`, { state: step.state, content })).status).toBe(200);
      // Its delivery job done before the next PATCH, as with a person typing the curl lines.
      await server.tilecast.idle();
      await double.waitForRequests(at + 1);
      const message = double.received[at]!;
      // The double answered 200 only for an access token it issued against an RS256 assertion of the demo account.
      expect(message).toMatchObject({
        status: 200,
        method: 'POST',
        path: `/v1/projects/${DEMO_FCM_PROJECT}/messages:send`,
        registrationToken: DEMO_FCM_TOKEN,
        body: { message: { android: { collapse_key: 'demo/build', priority: step.priority, ttl: '3600s' } } },
      });
      expect(message.accessToken).not.toBeNull();
      expect(message.data).toMatchObject<Partial<Tilecast>>({ kind: 'activity', slug: 'build', event: step.event, state: step.state });
      expect((message.data as Tilecast).content).toMatchObject(content);
    }
    // One access token for all of them: asked once, reused.
    expect(double.tokenRequests.map((request) => request.status)).toEqual([200]);

    const widget = { template: 'gauge', value: 61.5, unit: 'C', label: 'Boiler' };
    expect((await send('PATCH', `${server.url}/widget/boiler`, `Token ${token}`, { content: widget })).status).toBe(200);
    await double.waitForRequests(4);
    expect(double.received[3]).toMatchObject({ status: 200, data: { kind: 'widget', slug: 'boiler', event: 'changed', state: null } });
    expect(double.received[3]!.data).not.toHaveProperty('content');
  });

  it('APNs and FCM at once: a phone with both tokens gets each push from both, both in /metrics, both closed at shutdown', async () => {
    [fcmDemo, apnsDemo] = await Promise.all([startFcmDemo(), startApnsDemo()]);
    const { logger, infos } = recordingLogger();
    const env = { PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', TILECAST_DEMO: '1', TILECAST_METRICS: '1', ...fcmDemo.env, ...apnsDemo.env };
    server = await startReferenceServer(readConfig(env), logger);
    expect(server.banner).toMatch(/APNs delivery: on[^\n]*\nFCM delivery: on/);
    const { token, deviceToken } = tokensOf(server.banner);
    expect((await send('PUT', `${server.url}/device/fcm`, `Device ${deviceToken}`, { token: DEMO_FCM_TOKEN })).status).toBe(204);
    expect(
      (await send('PUT', `${server.url}/device/push`, `Device ${deviceToken}`, { environment: 'sandbox', widgets: DEMO_PUSH_TOKENS.widgets })).status,
    ).toBe(204);

    expect((await send('PATCH', `${server.url}/widget/boiler`, `Token ${token}`, { content: { template: 'gauge', value: 20, unit: 'C' } })).status).toBe(200);
    await server.tilecast.idle();
    expect(fcmDemo.double.received.map((message) => [message.status, (message.data as Tilecast).event])).toEqual([[200, 'changed']]);
    expect(apnsDemo.double.received.map((push) => [push.status, push.headers['apns-push-type']])).toEqual([[200, 'widgets']]);

    const metrics = await (await fetch(server.metricsUrl!)).text();
    for (const transport of ['apns', 'fcm']) {
      expect(metrics).toContain(`tilecast_device_pushes_total{transport="${transport}",kind="widget",outcome="delivered"} 1`);
      expect(metrics).toContain(`tilecast_transport_events_total{transport="${transport}",event="sent"} 1`);
    }
    expect(metrics).not.toContain(DEMO_FCM_TOKEN);
    // The README's metrics table names every transport and event label value both report.
    for (const name of ['tilecast_device_pushes_total', 'tilecast_transport_events_total']) {
      const row = readmeMetricRow(name);
      const values = [...metrics.matchAll(new RegExp(`^${name}\\{([^}]*)\\}`, 'gm'))].flatMap((match) =>
        [...match[1]!.matchAll(/(transport|event)="([^"]+)"/g)].map((label) => label[2]!),
      );
      expect(values).toEqual(expect.arrayContaining(['apns', 'fcm']));
      expect({ name, undocumented: [...new Set(values)].filter((value) => !row.includes(`\`${value}\``)) }).toEqual({ name, undocumented: [] });
    }

    await server.shutdown();
    server = undefined;
    const messages = infos.map((line) => line.message);
    expect(messages).toContain('shutdown: APNs closed, unsent pushes dropped');
    expect(messages).toContain('shutdown: FCM closed, unsent pushes dropped');
  });

  it("a key file that cannot sign stops the start with the setting's name, never echoing the key", async () => {
    fcmDemo = await startFcmDemo();
    const start = (file: string) =>
      startReferenceServer(readConfig({ PORT: '0', DATABASE_URL: '', ...fcmDemo!.env, TILECAST_FCM_CREDENTIALS_FILE: file }), recordingLogger().logger);
    const write = async (name: string, text: string) => {
      const file = join(fcmDemo!.dir, name);
      await writeFile(file, text);
      return file;
    };
    const notJson = await write('not-json.json', 'not json');
    await expect(start(notJson)).rejects.toThrow(
      `TILECAST_FCM_CREDENTIALS_FILE (${notJson}) is not JSON (the service-account key file from the Firebase console)`,
    );
    const noKey = await write('no-key.json', JSON.stringify({ project_id: 'p', client_email: 'a@p.iam.gserviceaccount.com' }));
    await expect(start(noKey)).rejects.toThrow(`TILECAST_FCM_CREDENTIALS_FILE (${noKey}): private_key is missing`);
    const ecKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const notRsa = await write('ec.json', JSON.stringify({ project_id: 'p', client_email: 'a@p.iam.gserviceaccount.com', private_key: ecKey }));
    const refused = await start(notRsa).then(
      () => null,
      (error: Error) => error.message,
    );
    expect(refused).toBe(`TILECAST_FCM_CREDENTIALS_FILE (${notRsa}): private_key must be an RSA key (RS256)`);
    expect(refused).not.toContain('PRIVATE KEY');
  });
});

describe('npm run fcm-demo (the built dist/fcm-demo.js)', () => {
  const main = fileURLToPath(new URL('../dist/fcm-demo.js', import.meta.url));

  it('prints the server settings with PORT, the demo account, and the curl lines of the walk-through', async () => {
    const child = spawn(process.execPath, [main], { env: { ...process.env, TILECAST_URL: '', PORT: '18082' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit');
    const deadline = Date.now() + 15_000;
    while (!/Every message the double receives/.test(output) && child.exitCode === null && Date.now() < deadline) {
      await Promise.race([once(child.stdout, 'data'), exited, new Promise((settle) => setTimeout(settle, 500))]);
    }
    child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    expect(output).toMatch(/^ {3}PORT=18082 \\$/m);
    expect(output).toMatch(/^ {3}TILECAST_DEMO=1 \\$/m);
    expect(output).toMatch(/^ {3}TILECAST_FCM_CREDENTIALS_FILE=\S+service-account\.json \\$/m);
    const curls = output.split('\n').filter((line) => line.trim().startsWith('curl '));
    expect(curls).toHaveLength(5);
    for (const line of curls) expect(line).toContain(' http://127.0.0.1:18082/');
  });
});
