/**
 * The README's APNs walk-through, run by a test: the demo's double, key and CA, the
 * reference server started with the `TILECAST_APNS_*` lines the demo prints, the phone's
 * tokens registered over HTTP, and a PATCH that reaches the double as a signed push
 * while the device stream still gets it too (docs/contract/apns.md#apns-device-stream-too).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@tilecast/core';
import { startApnsDouble } from '@tilecast/transport-apns/test-double';
import { afterEach, describe, expect, it } from 'vitest';
import { openSse, dataOf, type SseConnection } from '../../../test/support/sse-client.js';
import { DEMO_APNS_IDS, DEMO_PUSH_TOKENS, apnsDemoInstructions, demoServerSettings, startApnsDemo, type ApnsDemo } from '../src/apns-demo.js';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { storeSettings } from './store-settings.js';

const stores = storeSettings('apns');

function recordingLogger() {
  const warnings: Array<{ message: string; fields: unknown }> = [];
  const logger: Logger = { info() {}, error() {}, warn: (message: string, fields?: unknown) => void warnings.push({ message, fields }) };
  return { logger, warnings };
}

describe('reference server with APNs against the test double', () => {
  let demo: ApnsDemo | undefined;
  let server: ReferenceServer | undefined;
  const streams: SseConnection[] = [];
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await server?.close();
    await demo?.close();
    server = demo = undefined;
  });

  const send = (method: string, url: string, authorization: string, body: unknown) =>
    fetch(url, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it.each(stores)('%s store: a PATCH reaches the double as a signed liveactivity push, and the device stream as before', async (_name, storeEnv) => {
    demo = await startApnsDemo();
    // The demo prints the settings as shell lines; the server is started with exactly those (on a free port).
    const printed = apnsDemoInstructions(demoServerSettings(demo.env, 8080));
    const env = Object.fromEntries([...printed.matchAll(/^ {3}((?:TILECAST_[A-Z_]+|PORT))=(\S+)/gm)].map((m) => [m[1]!, m[2]!]));
    expect(env).toEqual({ ...demo.env, PORT: '8080', TILECAST_DEMO: '1' });
    const { logger, warnings } = recordingLogger();
    server = await startReferenceServer(readConfig({ HOST: '127.0.0.1', ...storeEnv(), ...env, PORT: '0' }), logger);
    expect(warnings).toContainEqual({ message: expect.stringContaining('APNs origin replaced'), fields: { origin: demo.double.origin } });
    expect(server.banner).toContain(`APNs delivery: on, bundle ${DEMO_APNS_IDS.bundleId}, to ${demo.double.origin}`);
    const { token, deviceToken } = /API token (?<token>\S+)[\s\S]*device token (?<deviceToken>\S+)/.exec(server.banner)!.groups!;

    const stream = await openSse(`${server.url}/device/stream`, { authorization: `Device ${deviceToken}` });
    streams.push(stream);
    const registered = await send('PUT', `${server.url}/device/push`, `Device ${deviceToken}`, {
      environment: 'sandbox',
      push_to_start: DEMO_PUSH_TOKENS.pushToStart,
      widgets: DEMO_PUSH_TOKENS.widgets,
    });
    expect(registered.status).toBe(204);

    const content = { template: 'progress', progress: { value: 0.4 } };
    const patched = await send('PATCH', `${server.url}/activity/build`, `Token ${token}`, { state: 'ONGOING', content });
    expect(patched.status).toBe(200);
    await demo.double.waitForRequests(1);
    const [push] = demo.double.received;
    // The double answered 200 only after verifying the ES256 signature against the demo key's public half.
    expect(push).toMatchObject({
      status: 200,
      method: 'POST',
      path: `/3/device/${DEMO_PUSH_TOKENS.pushToStart}`,
      headers: { 'apns-push-type': 'liveactivity', 'apns-topic': `${DEMO_APNS_IDS.bundleId}.push-type.liveactivity` },
      jwt: { header: { alg: 'ES256', kid: DEMO_APNS_IDS.keyId }, claims: { iss: DEMO_APNS_IDS.teamId } },
      payload: {
        aps: {
          event: 'start',
          'attributes-type': 'TilecastActivityAttributes',
          attributes: { owner: 'demo', slug: 'build', template: 'progress' },
          'content-state': { state: 'ONGOING' },
        },
      },
    });
    const activity = dataOf(await stream.next((frame) => frame.event === 'activity' && dataOf(frame).slug === 'build'));
    expect(activity).toMatchObject({ owner: 'demo', slug: 'build', state: 'ONGOING' });
  });

  it("TILECAST_APNS_ATTRIBUTES_TYPE names the start pushes' attributes-type", async () => {
    demo = await startApnsDemo();
    server = await startReferenceServer(
      readConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', ...demo.env, TILECAST_APNS_ATTRIBUTES_TYPE: 'AppActivityAttributes' }),
      recordingLogger().logger,
    );
    const { token, deviceToken } = /API token (?<token>\S+)[\s\S]*device token (?<deviceToken>\S+)/.exec(server.banner)!.groups!;
    await send('PUT', `${server.url}/device/push`, `Device ${deviceToken}`, { environment: 'production', push_to_start: DEMO_PUSH_TOKENS.pushToStart });
    await send('PATCH', `${server.url}/activity/build`, `Token ${token}`, { state: 'ONGOING', content: { template: 'progress', progress: { value: 0.1 } } });
    await demo.double.waitForRequests(1);
    expect(demo.double.received[0]).toMatchObject({ status: 200, payload: { aps: { 'attributes-type': 'AppActivityAttributes' } } });
  });

  it('TILECAST_APNS_MANAGE_ORIGIN: channel management goes there, with a warning; pushes still to TILECAST_APNS_ORIGIN', async () => {
    demo = await startApnsDemo();
    // A second double, checking the demo key: the management host.
    const manager = await startApnsDouble({ ...DEMO_APNS_IDS, publicKey: await readFile(demo.env.TILECAST_APNS_KEY_FILE!, 'utf8') });
    try {
      const caFile = join(demo.dir, 'both-doubles-ca.pem');
      await writeFile(caFile, `${demo.double.ca}\n${manager.ca}`);
      const { logger, warnings } = recordingLogger();
      const env = { ...demo.env, TILECAST_APNS_MANAGE_ORIGIN: manager.origin, TILECAST_APNS_CA_FILE: caFile };
      server = await startReferenceServer(readConfig({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '', ...env }), logger);
      expect(warnings).toContainEqual({ message: expect.stringContaining('APNs channel management origin replaced'), fields: { origin: manager.origin } });
      // The start-up channel sweep lists the channels at the management origin only.
      for (let i = 0; i < 200 && manager.channelRequests.length === 0; i++) await new Promise((settle) => setTimeout(settle, 10));
      expect(manager.channelRequests.map((q) => [q.method, q.path, q.status])).toEqual([['GET', `/1/apps/${DEMO_APNS_IDS.bundleId}/all-channels`, 200]]);
      expect(demo.double.channelRequests).toEqual([]);
    } finally {
      await server?.close();
      server = undefined;
      await manager.close();
    }
  });

  it("a key file that is not an EC P-256 key stops the start with the setting's name", async () => {
    demo = await startApnsDemo();
    const keyFile = join(demo.dir, 'not-a-key.p8');
    await writeFile(keyFile, 'not a key');
    await expect(
      startReferenceServer(readConfig({ PORT: '0', DATABASE_URL: '', ...demo.env, TILECAST_APNS_KEY_FILE: keyFile }), recordingLogger().logger),
    ).rejects.toThrow(`TILECAST_APNS_KEY_FILE (${keyFile}) is not a PEM private key (the .p8 file from Apple)`);
    // A path that does not exist is refused with the other settings, before anything starts.
    const missing = join(demo.dir, 'missing.p8');
    const env = { PORT: '0', DATABASE_URL: '', ...demo.env, TILECAST_APNS_KEY_FILE: missing };
    expect(() => readConfig(env)).toThrow(`TILECAST_APNS_KEY_FILE names a file that cannot be read: ${missing} (no such file)`);
  });
});

describe('npm run apns-demo (the built dist/apns-demo.js)', () => {
  const main = fileURLToPath(new URL('../dist/apns-demo.js', import.meta.url));
  const run = async (env: Record<string, string>, done: RegExp) => {
    const child = spawn(process.execPath, [main], { env: { ...process.env, TILECAST_URL: '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = once(child, 'exit');
    const deadline = Date.now() + 15_000;
    while (!done.test(output) && child.exitCode === null && Date.now() < deadline) {
      await Promise.race([once(child.stdout, 'data'), once(child.stderr, 'data'), exited, new Promise((settle) => setTimeout(settle, 500))]);
    }
    child.kill('SIGTERM');
    const [code] = await exited;
    return { output, code };
  };

  it('PORT sets the port the printed server settings and curl lines use; the demo account is asked for', async () => {
    const { output } = await run({ PORT: '18081' }, /Every push the double receives/);
    expect(output).toMatch(/^ {3}PORT=18081 \\$/m);
    expect(output).toMatch(/^ {3}TILECAST_DEMO=1 \\$/m);
    const curls = output.split('\n').filter((line) => line.trim().startsWith('curl '));
    expect(curls).toHaveLength(5);
    for (const line of curls) expect(line).toContain(' http://127.0.0.1:18081/');
  });

  it("a PORT that is not a port stops it with the setting's line and exit code 2", async () => {
    // Waits for the exit: nothing matches `(?!)`.
    const { output, code } = await run({ PORT: 'eighty' }, /(?!)/);
    expect(output).toBe('PORT must be an integer 1-65535, got "eighty"\n');
    expect(code).toBe(2);
  });
});
