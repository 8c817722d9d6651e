/**
 * What the CLI changes, a running Tilecast sees at once: an account and token made with
 * `tilecast` publish over HTTP (adapter-node-http on storage-postgres, same schema); a
 * rotated token, an ended subscription and a deleted account stop working; a registered
 * device connects with the device token the CLI printed.
 */
import { listen, mount } from '@tilecast/adapter-node-http';
import { createTilecast, silentLogger, type Tilecast } from '@tilecast/core';
import { createPostgresStorage, type PostgresStorage } from '@tilecast/storage-postgres';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_URL, randomSchema, requireBuild, tilecast } from './support.js';

const switchboard = { template: 'switchboard', actions: [{ id: 'bell', label: 'Bell' }] };

describe.skipIf(!DATABASE_URL)('a running Tilecast accepts what the CLI made', { timeout: 60_000 }, () => {
  const schema = randomSchema('cli_http');
  let pool: pg.Pool;
  let storage: PostgresStorage;
  let tilecastInstance: Tilecast;
  let server: Awaited<ReturnType<typeof listen>>;
  const cli = async (...args: string[]) => {
    const run = await tilecast([...args, '--json'], { DATABASE_URL: DATABASE_URL!, TILECAST_DATABASE_SCHEMA: schema });
    expect({ args, code: run.code, stderr: run.stderr }).toEqual({ args, code: 0, stderr: '' });
    return JSON.parse(run.stdout) as Record<string, string>;
  };
  const patchWidget = (token: string) =>
    fetch(`${server.url}/widget/lights`, {
      method: 'PATCH',
      headers: { authorization: `Token ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: switchboard }),
    });
  /** The status `GET /device/stream` answers a device token with (the stream is then dropped). */
  const deviceStatus = async (deviceToken: string) => {
    const abort = new AbortController();
    const response = await fetch(`${server.url}/device/stream`, { headers: { authorization: `Device ${deviceToken}` }, signal: abort.signal });
    abort.abort();
    return response.status;
  };

  beforeAll(async () => {
    requireBuild();
    // The schema is made by the CLI, as an operator would before starting the server.
    const migrated = await tilecast(['migrate'], { DATABASE_URL: DATABASE_URL!, TILECAST_DATABASE_SCHEMA: schema });
    expect(migrated.code).toBe(0);
    pool = new pg.Pool({ connectionString: DATABASE_URL, max: 4 });
    storage = createPostgresStorage({ pool, schema, listen: false });
    tilecastInstance = createTilecast({ storage, logger: silentLogger });
    server = await listen(mount({ '/': tilecastInstance, '/device': tilecastInstance.device }), { port: 0, host: '127.0.0.1' });
  });

  afterAll(async () => {
    await server?.close();
    await tilecastInstance?.close();
    await storage?.close();
    await pool?.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool?.end();
  });

  it('PATCH /widget with the token `accounts create` printed; 401 after `tokens rotate`, 402 after `subscription set none`', async () => {
    const { token } = await cli('accounts', 'create', 'acme');
    await cli('widgets', 'create', 'acme', 'lights', '--template', 'switchboard');
    expect((await patchWidget(token!)).status).toBe(200);
    expect((await patchWidget(`${token}x`)).status).toBe(401);

    const rotated = (await cli('tokens', 'rotate', 'acme')).token!;
    expect((await patchWidget(token!)).status).toBe(401);
    expect((await patchWidget(rotated)).status).toBe(200);

    await cli('subscription', 'set', 'acme', 'none');
    expect((await patchWidget(rotated)).status).toBe(402);
    await cli('subscription', 'set', 'acme', 'active');
    expect((await patchWidget(rotated)).status).toBe(200);

    await cli('widgets', 'delete', 'acme', 'lights');
    expect((await patchWidget(rotated)).status).toBe(404);
  });

  it('a device registered with the CLI connects with the printed token until it is removed', async () => {
    const { token } = await cli('devices', 'register', 'acme', 'acme-phone');
    expect(await deviceStatus(token!)).toBe(200);
    await cli('devices', 'remove', 'acme-phone');
    expect(await deviceStatus(token!)).toBe(401);
  });

  it('a deleted account stops working', async () => {
    const { token } = await cli('accounts', 'create', 'gone');
    await cli('widgets', 'create', 'gone', 'lights', '--template', 'switchboard');
    expect((await patchWidget(token!)).status).toBe(200);
    await cli('accounts', 'delete', 'gone');
    expect((await patchWidget(token!)).status).toBe(401);
  });
});
