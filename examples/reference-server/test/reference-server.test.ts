import { spawn } from 'node:child_process';
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

describe('reference server', () => {
  const servers: ReferenceServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
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
    // Not on a terminal: no token, and how to issue new ones.
    expect(server.bannerWithoutTokens).not.toContain(token);
    expect(server.bannerWithoutTokens).not.toContain(deviceToken);
    expect(server.bannerWithoutTokens).toContain('Account "home": API token generated, printed only on a terminal');
    expect(server.bannerWithoutTokens).toContain('npx tilecast tokens rotate home');
    expect(server.bannerWithoutTokens).toContain('npx tilecast devices remove home-phone && npx tilecast devices register home home-phone');
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
      demo: true,
      demoRotate: false,
      databaseUrl: null,
      databaseSchema: 'tilecast',
      databaseDeadlines: { connectTimeoutMs: 5_000, acquireTimeoutMs: 5_000, statementTimeoutMs: 5_000 },
      timeouts: { requestTimeoutMs: 20_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 },
      sse: { pingMs: 20_000, lifetimeMs: 900_000 },
      webhookAllowPrivate: false,
      shutdownGraceMs: 10_000,
      apns: null,
      fcm: null,
      metrics: { serve: 'off' },
      logLevel: 'info',
      delivery: { leaseMs: 30_000, pollMs: 2_000, maxJobs: 8, lateAfterMs: 60_000 },
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

  it('TILECAST_DEMO: unset, on only in memory without a seed; 1 or 0 whatever the store', () => {
    const seed = fileURLToPath(new URL('../deploy/seed.json', import.meta.url));
    const database = 'postgres://db.internal/tilecast';
    expect(readConfig({}).demo).toBe(true);
    expect(readConfig({ DATABASE_URL: database }).demo).toBe(false);
    expect(readConfig({ TILECAST_SEED: seed }).demo).toBe(false);
    expect(readConfig({ DATABASE_URL: database, TILECAST_DEMO: '1' }).demo).toBe(true);
    expect(readConfig({ TILECAST_DEMO: '0' }).demo).toBe(false);
    expect(() => readConfig({ DATABASE_URL: database, TILECAST_DEMO_ROTATE: '1' })).toThrow(
      'TILECAST_DEMO_ROTATE=1 needs the demo account: set TILECAST_DEMO=1 (unset, it is off with DATABASE_URL or TILECAST_SEED)',
    );
    expect(readConfig({ DATABASE_URL: database, TILECAST_DEMO: '1', TILECAST_DEMO_ROTATE: '1' }).demoRotate).toBe(true);
  });

  it('reads the HTTP deadlines, the header deadline at most the request deadline', () => {
    const env = { TILECAST_REQUEST_TIMEOUT_MS: '15000', TILECAST_HEADERS_TIMEOUT_MS: '5000', TILECAST_KEEP_ALIVE_TIMEOUT_MS: '65000' };
    expect(readConfig(env).timeouts).toEqual({ requestTimeoutMs: 15_000, headersTimeoutMs: 5_000, keepAliveTimeoutMs: 65_000 });
    expect(() => readConfig({ TILECAST_REQUEST_TIMEOUT_MS: '8000' })).toThrow(
      'TILECAST_HEADERS_TIMEOUT_MS (10000) must not exceed TILECAST_REQUEST_TIMEOUT_MS (8000)',
    );
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
