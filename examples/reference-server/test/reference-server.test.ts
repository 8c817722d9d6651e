import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { TWO_ACCOUNT_SEED } from './fixtures.js';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Runs the built `npm start` entry and collects its output until `done` matches. */
async function runMain(env: Record<string, string>, done: RegExp): Promise<{ child: ChildProcess; output: string }> {
  const child = spawn(process.execPath, [main], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const deadline = Date.now() + 15_000;
  while (!done.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not print ${done}:\n${output}`);
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit')]);
  }
  return { child, output };
}

describe('reference server', () => {
  const running: ChildProcess[] = [];
  const servers: ReferenceServer[] = [];
  afterEach(async () => {
    for (const child of running.splice(0)) child.kill('SIGTERM');
    for (const server of servers.splice(0)) await server.close();
  });

  it('npm start prints a demo token and a curl line that starts an activity', async () => {
    // In-memory mode even when the test run itself has DATABASE_URL (CI sets it for the storage tests).
    const { child, output } = await runMain({ PORT: '0', HOST: '127.0.0.1', DATABASE_URL: '' }, /OpenAPI: /);
    running.push(child);
    const curl = /curl -X PATCH (\S+) -H 'Authorization: Token (\S+)' -H 'Content-Type: application\/json' -d '(.+)'/.exec(output);
    expect(curl, output).not.toBeNull();
    const [, url, token, body] = curl!;
    const reply = await fetch(url!, { method: 'PATCH', headers: { authorization: `Token ${token}`, 'content-type': 'application/json' }, body });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ state: 'ONGOING', content: { template: 'progress' } });
  });

  it('fails loudly when DATABASE_URL names an unreachable database', async () => {
    const child = spawn(process.execPath, [main], { env: { ...process.env, PORT: '0', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' }, stdio: 'pipe' });
    let output = '';
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const [code] = await once(child, 'exit');
    expect(code).toBe(1);
    expect(output).toContain('cannot use DATABASE_URL');
  });

  it('loads a seed file (TILECAST_SEED), and loading it again is no error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tilecast-seed-'));
    const seedPath = join(dir, 'seed.json');
    await writeFile(seedPath, JSON.stringify(TWO_ACCOUNT_SEED));
    const config = readConfig({ PORT: '0', TILECAST_SEED: seedPath });
    const server = await startReferenceServer(config, { info() {}, warn() {}, error() {} });
    servers.push(server);
    const reply = await fetch(`${server.url}/widget/lights`, {
      method: 'PATCH',
      headers: { authorization: 'Token tok_acme_1', 'content-type': 'application/json' },
      body: JSON.stringify({ content: { template: 'switchboard', actions: [{ id: 'hall', label: 'Hall', kind: 'toggle', on: true }] } }),
    });
    expect(reply.status).toBe(200);
    // Loading the same seed again creates nothing and is no error.
    const again = await server.tilecast.loadSeed(JSON.parse(await (await import('node:fs/promises')).readFile(seedPath, 'utf8')));
    expect(again).toEqual({
      accounts: [
        { id: 'acme', created: false, token: null },
        { id: 'guest', created: false, token: null },
      ],
      devices: [
        { id: 'acme-phone', account: 'acme', created: false, token: null },
        { id: 'guest-phone', account: 'guest', created: false, token: null },
      ],
    });
  });

  it('prints the tokens it generated for a seed that left them out, and only those', async () => {
    const seedPath = join(await mkdtemp(join(tmpdir(), 'tilecast-seed-')), 'seed.json');
    await writeFile(
      seedPath,
      JSON.stringify({
        accounts: [
          { id: 'home', devices: [{ id: 'home-phone' }, { id: 'spare-phone', token: 'dev_spare_given' }] },
          { id: 'given', token: 'tok_given_1' },
        ],
      }),
    );
    const server = await startReferenceServer(readConfig({ PORT: '0', TILECAST_SEED: seedPath }), { info() {}, warn() {}, error() {} });
    servers.push(server);
    const token = /^Account "home": API token (\S+)$/m.exec(server.banner)?.[1];
    const deviceToken = /^Device "home-phone" of "home": device token (\S+)$/m.exec(server.banner)?.[1];
    expect(server.banner).not.toContain('tok_given_1');
    expect(server.banner).not.toContain('dev_spare_given');
    expect(server.banner.match(/ token /g)).toHaveLength(2);
    // The printed tokens are the working ones: the requests pass authentication (no 401).
    const widget = await fetch(`${server.url}/widget/lights`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { template: 'gauge', value: 1 } }),
    });
    expect(widget.status, await widget.text()).toBe(404);
    const push = await fetch(`${server.url}/device/push`, {
      method: 'PUT',
      headers: { authorization: `Device ${deviceToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'sandbox', widgets: 'c3'.repeat(32) }),
    });
    expect(push.status, await push.text()).toBeLessThan(300);
  });

  it('reads PORT and HOST with defaults, and refuses a bad PORT', () => {
    expect(readConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      seedPath: null,
      demoRotate: false,
      databaseUrl: null,
      databaseSchema: 'tilecast',
      databaseDeadlines: { connectTimeoutMs: 5_000, acquireTimeoutMs: 5_000, statementTimeoutMs: 5_000 },
      sse: { pingMs: 20_000, lifetimeMs: 900_000 },
      webhookAllowPrivate: false,
      shutdownGraceMs: 10_000,
      apns: null,
      metrics: { serve: 'off' },
      logLevel: 'info',
    });
    expect(readConfig({ TILECAST_WEBHOOK_ALLOW_PRIVATE: '1' }).webhookAllowPrivate).toBe(true);
    expect(readConfig({ TILECAST_DEMO_ROTATE: '1' }).demoRotate).toBe(true);
    expect(readConfig({ TILECAST_WEBHOOK_ALLOW_PRIVATE: '0' }).webhookAllowPrivate).toBe(false);
    // Not read as off: a flag is 1 or 0.
    expect(() => readConfig({ TILECAST_WEBHOOK_ALLOW_PRIVATE: 'yes' })).toThrow('TILECAST_WEBHOOK_ALLOW_PRIVATE must be 1 (on) or 0 (off), got "yes"');
    expect(readConfig({ TILECAST_SSE_PING_MS: '50', TILECAST_SSE_LIFETIME_MS: '2000' }).sse).toEqual({ pingMs: 50, lifetimeMs: 2000 });
    expect(() => readConfig({ TILECAST_SSE_PING_MS: '-1' })).toThrow(/TILECAST_SSE_PING_MS/);
    expect(() => readConfig({ PORT: 'eighty' })).toThrow(/PORT/);
  });

  it('reads the PostgreSQL deadlines and refuses values that are not positive integers', () => {
    const env = { TILECAST_PG_CONNECT_TIMEOUT_MS: '1000', TILECAST_PG_ACQUIRE_TIMEOUT_MS: '2000', TILECAST_PG_STATEMENT_TIMEOUT_MS: '3000' };
    expect(readConfig(env).databaseDeadlines).toEqual({ connectTimeoutMs: 1000, acquireTimeoutMs: 2000, statementTimeoutMs: 3000 });
    for (const name of Object.keys(env)) {
      for (const bad of ['0', '-5', '1.5', 'soon', '1e3x', ' 12', '0x10', '2147483648'])
        expect(() => readConfig({ [name]: bad }), `${name}=${bad}`).toThrow(name);
    }
  });
});
