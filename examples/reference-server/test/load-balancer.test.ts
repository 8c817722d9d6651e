/**
 * The compose setup without containers: deploy/haproxy.cfg, as committed (only its listening
 * address and the two servers' addresses rewritten to free local ports), in front of two
 * built servers (`node dist/main.js`, what the image runs) on one PostgreSQL database.
 * Event streams pass through unbuffered, requests spread over both instances still meet,
 * and a rolling restart (SIGTERM to one instance) loses no request: the draining instance
 * refuses connections and HAProxy sends them to the other one.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSse, type SseConnection } from '../../../test/support/sse-client.js';

const DATABASE_URL = process.env.DATABASE_URL || undefined;
const HAPROXY = process.env.TILECAST_HAPROXY || '/usr/sbin/haproxy';
const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const haproxyConfig = fileURLToPath(new URL('../deploy/haproxy.cfg', import.meta.url));
const NEEDS = [
  ...(DATABASE_URL ? [] : ['needs a real PostgreSQL server: set DATABASE_URL or run one on 127.0.0.1:5432']),
  ...(existsSync(HAPROXY) ? [] : [`needs haproxy at ${HAPROXY}: apt-get install -y haproxy`]),
];

async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `command args` and waits (bounded) until its output matches `ready`. */
async function start(command: string, args: string[], env: Record<string, string>, ready: RegExp): Promise<Running> {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = once(child, 'exit').then(([code]) => code as number | null);
  const deadline = Date.now() + 15_000;
  while (!ready.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${command} did not start:\n${output}`);
    await Promise.race([once(child.stdout!, 'data'), once(child.stderr!, 'data'), exited, new Promise((settle) => setTimeout(settle, 200))]);
  }
  return { child, output: () => output, exited };
}

/** Polls `probe` (bounded) until it answers true. */
async function until(what: string, probe: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await probe().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((settle) => setTimeout(settle, 200));
  }
}

describe.skipIf(NEEDS.length > 0)('deploy/haproxy.cfg in front of two instances', () => {
  const schema = `lb_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const running: Running[] = [];
  const streams: SseConnection[] = [];
  let instances: Running[] = [];
  let lb = '';
  let token = '';
  let device = '';

  beforeAll(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tilecast-lb-'));
    const seed = join(dir, 'seed.json');
    // The seed of the compose setup, with the token the test needs and the phone the README registers with the admin command.
    const composeSeed = JSON.parse(await readFile(fileURLToPath(new URL('../deploy/seed.json', import.meta.url)), 'utf8'));
    token = `tok_${randomUUID()}`;
    device = `dev_${randomUUID()}`;
    composeSeed.accounts[0].token = token;
    composeSeed.accounts[0].devices = [{ id: 'home-phone', token: device }];
    await writeFile(seed, JSON.stringify(composeSeed));
    const [portA, portB, portLb] = [await freePort(), await freePort(), await freePort()];
    const env = { HOST: '127.0.0.1', DATABASE_URL: DATABASE_URL!, TILECAST_DATABASE_SCHEMA: schema, TILECAST_SEED: seed, TILECAST_SHUTDOWN_GRACE_MS: '3000' };
    // Started at once, as compose starts them: migrations and the seed race safely.
    instances = await Promise.all([portA, portB].map((port) => start(process.execPath, [main], { ...env, PORT: String(port) }, /listening on/)));
    running.push(...instances);
    const config = (await readFile(haproxyConfig, 'utf8'))
      .replace(/^(\s*)bind :8080$/m, `$1bind 127.0.0.1:${portLb}`)
      .replace(/^(\s*server tilecast-a) tilecast-a:8080$/m, `$1 127.0.0.1:${portA}`)
      .replace(/^(\s*server tilecast-b) tilecast-b:8080$/m, `$1 127.0.0.1:${portB}`);
    expect(config).toContain(`bind 127.0.0.1:${portLb}`);
    expect(config).toContain(`server tilecast-b 127.0.0.1:${portB}`);
    const configFile = join(dir, 'haproxy.cfg');
    await writeFile(configFile, config);
    const check = spawnSync(HAPROXY, ['-c', '-f', configFile], { encoding: 'utf8', timeout: 10_000 });
    expect(check.status, `${check.stdout}${check.stderr}`).toBe(0);
    // HAProxy prints nothing once it listens: the readiness poll below waits for it.
    running.push(await start(HAPROXY, ['-db', '-f', configFile], {}, /(?:)/));
    lb = `http://127.0.0.1:${portLb}`;
    await until('the load balancer', async () => (await fetch(`${lb}/readyz`)).status === 200);
    // The widget a press is reported on.
    const content = { template: 'switchboard', actions: [{ id: 'bell', label: 'Doorbell' }] };
    const reply = await fetch(`${lb}/widget/lights`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content }),
    });
    expect(reply.status, await reply.text()).toBe(200);
  }, 60_000);

  afterAll(async () => {
    for (const stream of streams) stream.close();
    for (const process of running) if (process.child.exitCode === null) process.child.kill('SIGKILL');
    const admin = new pg.Pool({ connectionString: DATABASE_URL });
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => admin.end());
  });

  const press = (requestId: string) =>
    fetch(`${lb}/device/presses`, {
      method: 'POST',
      headers: { authorization: `Device ${device}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'home', slug: 'lights', request_id: requestId, action: 'bell' }),
    });

  const publish = (value: number) =>
    fetch(`${lb}/widget/lights`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { template: 'switchboard', actions: [{ id: 'bell', label: `Doorbell ${value}` }] } }),
    });

  it('an event stream opened through it gets each press at once, whichever instance took it', async () => {
    const stream = await openSse(`${lb}/events`, { authorization: `Token ${token}` });
    streams.push(stream);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('x-accel-buffering')).toBe('no');
    // Round robin: consecutive presses go to both instances; each event arrives while the stream stays open.
    for (const requestId of ['p-1', 'p-2', 'p-3', 'p-4']) {
      const reply = await press(requestId);
      expect(reply.status).toBe(202);
      const { event_id: id } = (await reply.json()) as { event_id: string };
      const frame = await stream.next((candidate) => candidate.data?.includes(`"${id}"`) ?? false, 5_000);
      expect(JSON.parse(frame.data!)).toMatchObject({ id });
    }
    stream.close();
  });

  it('a rolling restart loses no request: the draining instance refuses, the other answers', async () => {
    const [first] = instances;
    first!.child.kill('SIGTERM');
    // Requests keep coming while the instance drains and after it exited (publishing:
    // presses are rate-limited per phone).
    const statuses: number[] = [];
    const deadline = Date.now() + 6_000;
    for (let i = 0; Date.now() < deadline && i < 400; i++) {
      const reply = await publish(i);
      statuses.push(reply.status);
      await reply.text();
      await new Promise((settle) => setTimeout(settle, 10));
    }
    expect(await first!.exited).toBe(0);
    expect(first!.output()).toContain('shutdown: done, exiting');
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((status) => status !== 200)).toEqual([]);
    // A stream opened now reaches the instance left and still gets events.
    const after = await openSse(`${lb}/events`, { authorization: `Token ${token}` });
    streams.push(after);
    const reply = await press('after-drain');
    expect(reply.status).toBe(202);
    const { event_id: id } = (await reply.json()) as { event_id: string };
    await after.next((frame) => frame.data?.includes(`"${id}"`) ?? false, 5_000);
  }, 30_000);
});

if (NEEDS.length > 0) {
  describe('deploy/haproxy.cfg in front of two instances', () => {
    it.skip(`all tests skipped: ${NEEDS.join('; ')}`, () => {});
  });
}
