/** The reference server routes the simulator page before Tilecast, and hands out only the demo token. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { silentLogger } from '@tilecast/core';
import { readConfig } from '../src/config.js';
import { startReferenceServer, type ReferenceServer } from '../src/index.js';

describe('reference server: simulator routes', () => {
  let server: ReferenceServer | undefined;
  let dir: string | undefined;
  afterEach(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
    server = dir = undefined;
  });

  it('demo mode: serves the page at / and the demo phone token to it; the API keeps its routes and 404', async () => {
    server = await startReferenceServer(readConfig({ PORT: '0' }), silentLogger);
    const deviceToken = /device token (\S+)/.exec(server.banner)![1];
    expect(server.banner).toContain(`Device simulator: ${server.url}/`);
    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Tilecast device simulator');
    expect(await (await fetch(`${server.url}/simulator-config.json`)).json()).toEqual({ deviceToken });
    expect((await fetch(`${server.url}/openapi.json`)).status).toBe(200);
    const unknown = await fetch(`${server.url}/nowhere`);
    expect(unknown.status).toBe(404);
    expect((await fetch(`${server.url}/device/stream`)).status).toBe(401);
  });

  it('seeded: the page is served, but no token is given away', async () => {
    dir = await mkdtemp(join(tmpdir(), 'tilecast-seed-'));
    const seedPath = join(dir, 'seed.json');
    await writeFile(seedPath, JSON.stringify({ accounts: [{ id: 'acme', token: 'tok_acme_1', devices: [{ id: 'acme-phone', token: 'dev_acme_phone' }] }] }));
    server = await startReferenceServer(readConfig({ PORT: '0', TILECAST_SEED: seedPath }), silentLogger);
    expect((await fetch(`${server.url}/`)).status).toBe(200);
    const config = await fetch(`${server.url}/simulator-config.json`);
    expect(config.status).toBe(404);
    expect(await config.text()).not.toContain('dev_acme_phone');
  });
});
