/**
 * Restarts of the reference server on one PostgreSQL schema (docs/contract/deployment.md#env-seed, docs/contract/deployment.md#demo-account): the
 * seed, and the demo account without a seed, create only what is missing, so nothing the
 * app or the API changed is reverted by a restart, and instances starting at once with one
 * seed never revert each other.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@tilecast/core';
import { createPostgresStorage } from '@tilecast/storage-postgres';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';
import { TWO_ACCOUNT_SEED } from './fixtures.js';

const DATABASE_URL = process.env.DATABASE_URL || undefined;

const switchboard = { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] };

describe.skipIf(!DATABASE_URL)('reference server restarts on PostgreSQL', () => {
  let admin: pg.Pool;
  let seedPath = '';
  const schemas: string[] = [];
  const running: ReferenceServer[] = [];

  const newSchema = () => {
    const schema = `rs_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    schemas.push(schema);
    return schema;
  };
  const start = async (schema: string, env: Record<string, string> = {}) => {
    const server = await startReferenceServer(readConfig({ PORT: '0', DATABASE_URL: DATABASE_URL!, TILECAST_DATABASE_SCHEMA: schema, ...env }), silentLogger);
    running.push(server);
    return server;
  };
  const stop = async (server: ReferenceServer) => {
    running.splice(running.indexOf(server), 1);
    await server.close();
  };
  const patchWidget = (server: ReferenceServer, token: string, body: object) =>
    fetch(`${server.url}/widget/lights`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const patchActivity = (server: ReferenceServer, token: string) =>
    fetch(`${server.url}/activity/build`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ state: 'ONGOING', content: { template: 'progress', progress: { value: 0.4 } } }),
    });
  const pressAs = (server: ReferenceServer, deviceToken: string, requestId: string) =>
    fetch(`${server.url}/device/presses`, {
      method: 'POST',
      headers: { authorization: `Device ${deviceToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ owner: 'acme', slug: 'lights', request_id: requestId, action: 'bell' }),
    });
  /** The status `GET /device/stream` answers a device token with (the stream is then dropped). */
  const deviceStatus = async (server: ReferenceServer, deviceToken: string) => {
    const abort = new AbortController();
    const response = await fetch(`${server.url}/device/stream`, { headers: { authorization: `Device ${deviceToken}` }, signal: abort.signal });
    abort.abort();
    return response.status;
  };
  const widgetOf = async (schema: string, account: string, slug: string) => {
    const storage = createPostgresStorage({ pool: admin, schema, listen: false });
    try {
      return await storage.getWidget(account, slug);
    } finally {
      await storage.close();
    }
  };

  beforeAll(async () => {
    admin = new pg.Pool({ connectionString: DATABASE_URL });
    const dir = await mkdtemp(join(tmpdir(), 'tilecast-seed-restart-'));
    seedPath = join(dir, 'seed.json');
    await writeFile(seedPath, JSON.stringify(TWO_ACCOUNT_SEED));
  });
  afterEach(async () => {
    for (const server of running.splice(0)) await server.close();
  });
  afterAll(async () => {
    for (const schema of schemas) await admin?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin?.end();
  });

  it('a restart with the same seed keeps a rotated token, an ended subscription and a stale_after sent with a PATCH', async () => {
    const schema = newSchema();
    const first = await start(schema, { TILECAST_SEED: seedPath });
    expect(first.banner).toContain('acme (created)');
    expect((await patchWidget(first, 'tok_acme_1', { content: switchboard })).status).toBe(200);

    // What the app and the API changed while the first instance ran.
    const rotated = await first.tilecast.management.rotateToken('acme');
    await first.tilecast.management.setSubscription('guest', 'none');
    expect((await patchWidget(first, rotated, { content: switchboard, stale_after: 600 })).status).toBe(200);
    expect((await widgetOf(schema, 'acme', 'lights'))?.staleAfter).toBe(600);
    await stop(first);

    const second = await start(schema, { TILECAST_SEED: seedPath });
    expect(second.banner).toContain('acme (exists, left as it is)');
    expect((await patchActivity(second, 'tok_acme_1')).status).toBe(401);
    expect((await patchActivity(second, rotated)).status).toBe(200);
    expect((await patchActivity(second, 'tok_guest_1')).status).toBe(402);
    expect(await widgetOf(schema, 'acme', 'lights')).toMatchObject({ staleAfter: 600, content: switchboard });
    // The seed's device tokens and share still hold: the guest's phone presses the shared widget.
    expect((await pressAs(second, 'dev_guest_phone', 'after-restart')).status).toBe(202);
  });

  it('two instances starting at once with one seed create it once and revert nothing of each other', async () => {
    const schema = newSchema();
    const [a, b] = await Promise.all([start(schema, { TILECAST_SEED: seedPath }), start(schema, { TILECAST_SEED: seedPath })]);
    const banners = [a.banner, b.banner].join('\n');
    expect(banners.match(/acme \(created\)/g)).toHaveLength(1);
    expect((await patchActivity(a, 'tok_acme_1')).status).toBe(200);
    const rotated = await a.tilecast.management.rotateToken('acme');

    // A third instance joins with the same seed while the other two run.
    const c = await start(schema, { TILECAST_SEED: seedPath });
    for (const server of [a, b, c]) {
      expect((await patchActivity(server, 'tok_acme_1')).status).toBe(401);
      expect((await patchActivity(server, rotated)).status).toBe(200);
    }
  });

  it('TILECAST_DEMO=1: the demo account is created once: a restart keeps it and its tokens, and says how to get new ones', async () => {
    const schema = newSchema();
    const first = await start(schema, { TILECAST_DEMO: '1' });
    const token = /API token (\S+)/.exec(first.banner)?.[1];
    const deviceToken = /device token (\S+)/.exec(first.banner)?.[1];
    expect(token).toBeDefined();
    expect(deviceToken).toBeDefined();
    expect((await patchActivity(first, token!)).status).toBe(200);
    await stop(first);

    const second = await start(schema, { TILECAST_DEMO: '1' });
    expect(second.banner).toContain('Demo account "demo" already exists');
    expect(second.banner).toContain('npx tilecast tokens rotate demo');
    expect(second.banner).toContain('TILECAST_DEMO_ROTATE=1');
    expect(second.banner).not.toMatch(/API token/);
    expect((await patchActivity(second, token!)).status).toBe(200);
    expect(await deviceStatus(second, deviceToken!)).toBe(200);
    const simulatorConfig = await fetch(`${second.url}/simulator-config.json`);
    expect(simulatorConfig.status).toBe(404);
    await stop(second);

    // TILECAST_DEMO_ROTATE=1 issues new tokens; the old ones stop working.
    const third = await start(schema, { TILECAST_DEMO: '1', TILECAST_DEMO_ROTATE: '1' });
    const newToken = /API token (\S+)/.exec(third.banner)?.[1];
    const newDeviceToken = /device token (\S+)/.exec(third.banner)?.[1];
    expect(newToken).toBeDefined();
    expect(newToken).not.toBe(token);
    expect((await patchActivity(third, token!)).status).toBe(401);
    expect((await patchActivity(third, newToken!)).status).toBe(200);
    expect(await deviceStatus(third, deviceToken!)).toBe(401);
    expect(await deviceStatus(third, newDeviceToken!)).toBe(200);
    expect(await (await fetch(`${third.url}/simulator-config.json`)).json()).toEqual({ deviceToken: newDeviceToken });
  });
});
