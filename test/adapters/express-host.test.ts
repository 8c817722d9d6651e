/**
 * Tilecast inside a real Express app, as a host embeds it (issue 23): the host has routes
 * before and after the mount, its own `express.json()`, its own 404 and error handlers.
 * Mounted at `/` or at `/tilecast`, on Express 4 and 5, every host route keeps working and
 * Tilecast answers only its own routes.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import express4 from 'express4';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installServerHandlers, tilecastRouter } from '@tilecast/adapter-express';
import { createTilecast, silentLogger, type Storage, type Tilecast } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { seedFixture, type Fixture } from '../support/fixtures.js';

type Express = typeof express;
const versions: [string, Express][] = [
  ['Express 4', express4 as unknown as Express],
  ['Express 5', express],
];

/** The host app: `prefix` is where Tilecast is mounted (`''` for the root). */
function hostApp(createApp: Express, tilecast: Tilecast, prefix: '' | '/tilecast') {
  const app = createApp();
  app.use(createApp.json());
  app.get('/before', (_req, res) => void res.json({ host: 'before' }));
  app.post('/api/orders', (req, res) => void res.status(201).json({ order: req.body }));
  app.get('/api/boom', () => {
    throw new Error('the host route failed');
  });
  app.use(`${prefix}/device`, tilecastRouter(tilecast.device));
  app.use(prefix || '/', tilecastRouter(tilecast));
  app.get('/after', (_req, res) => void res.json({ host: 'after' }));
  app.post('/api/late-orders', (req, res) => void res.status(201).json({ late: req.body }));
  app.use((req: express.Request, res: express.Response) => void res.status(404).json({ host: 'not found', path: req.originalUrl }));
  app.use((error: { status?: number; type?: string; message: string }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(error.status ?? 500).json({ host: 'error', type: error.type ?? null, message: error.message });
  });
  return app;
}

describe.each(versions)('%s host app', (_version, createApp) => {
  describe.each(['', '/tilecast'] as const)('with Tilecast mounted at "%s"', (prefix) => {
    let tilecast: Tilecast;
    let storage: Storage;
    let fixture: Fixture;
    let server: Server;
    let origin: string;
    beforeAll(async () => {
      storage = createMemoryStorage();
      tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0 });
      fixture = await seedFixture(tilecast);
      const app = hostApp(createApp, tilecast, prefix);
      server = await new Promise<Server>((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      installServerHandlers(server, app);
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tilecast.close();
    });

    const send = async (method: string, path: string, body?: string, headers: Record<string, string> = {}) => {
      const reply = await fetch(`${origin}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body,
      });
      const text = await reply.text();
      return { status: reply.status, headers: reply.headers, body: text === '' ? undefined : JSON.parse(text) };
    };

    it('host routes before and after the mount answer', async () => {
      expect(await send('GET', '/before')).toMatchObject({ status: 200, body: { host: 'before' } });
      expect(await send('GET', '/after')).toMatchObject({ status: 200, body: { host: 'after' } });
      expect(await send('POST', '/api/orders', '{"n":1}')).toMatchObject({ status: 201, body: { order: { n: 1 } } });
      expect(await send('POST', '/api/late-orders', '{"n":2}')).toMatchObject({ status: 201, body: { late: { n: 2 } } });
    });

    it("paths no one serves reach the host's own 404 handler", async () => {
      for (const path of ['/nowhere', `${prefix}/nowhere`, `${prefix}/device/nowhere`, `${prefix}/activity/build/extra`]) {
        expect(await send('GET', path), path).toEqual(expect.objectContaining({ status: 404, body: { host: 'not found', path } }));
      }
    });

    it("errors of the host's own middleware and routes reach the host's error handler", async () => {
      const malformed = await send('POST', '/api/orders', '{"n":');
      expect(malformed).toMatchObject({ status: 400, body: { host: 'error', type: 'entity.parse.failed' } });
      expect(await send('POST', '/api/late-orders', '{"n":')).toMatchObject({ status: 400, body: { host: 'error', type: 'entity.parse.failed' } });
      expect(await send('GET', '/api/boom')).toMatchObject({ status: 500, body: { host: 'error', message: 'the host route failed' } });
    });

    it('Tilecast answers its own routes, with its own JSON', async () => {
      const openapi = await send('GET', `${prefix}/openapi.json`);
      expect(openapi.status).toBe(200);
      expect(openapi.body.openapi).toMatch(/^3\./);
      expect(await send('PATCH', `${prefix}/activity/build`, '{}')).toMatchObject({ status: 401 });
      const wrongMethod = await send('GET', `${prefix}/activity/build`);
      expect(wrongMethod).toMatchObject({ status: 405, body: { detail: 'Method Not Allowed' } });
      expect(wrongMethod.headers.get('allow')).toBe('PATCH');
    });

    it("a malformed body to Tilecast's own route gets Tilecast's answer, after authentication", async () => {
      const json_invalid = { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] };
      expect(await send('PATCH', `${prefix}/activity/build`, '{"n":', { authorization: `Token ${fixture.acme}` })).toMatchObject({
        status: 422,
        body: json_invalid,
      });
      expect(await send('PATCH', `${prefix}/activity/build`, '{"n":')).toMatchObject({ status: 401 });
      expect(await send('POST', `${prefix}/device/presses`, '{"n":', { authorization: `Device ${fixture.deviceToken}` })).toMatchObject({
        status: 422,
        body: json_invalid,
      });
    });

    it("a charset the host's express.json() refuses and Tilecast takes (utf8) is read by Tilecast", async () => {
      // docs/contract/limits-and-errors.md#body-charset-utf8: the host's parser refuses it before reading the body.
      const device = { authorization: `Device ${fixture.deviceToken}`, 'content-type': 'application/json; charset=utf8' };
      expect(await send('PUT', `${prefix}/device/fcm`, '{"token":"fcm:Token_1-a"}', device)).toMatchObject({ status: 204 });
      expect(await storage.getFcmToken('acme-phone')).toBe('fcm:Token_1-a');
      const latin1 = { ...device, 'content-type': 'application/json; charset=latin1' };
      expect(await send('PUT', `${prefix}/device/fcm`, '{"token":"other"}', latin1)).toMatchObject({ status: 415, body: { detail: 'Unsupported Media Type' } });
      expect(await send('PUT', `${prefix}/device/fcm`, '{"token":"other"}', { ...latin1, authorization: 'Device nope' })).toMatchObject({ status: 401 });
      expect(await storage.getFcmToken('acme-phone')).toBe('fcm:Token_1-a');
    });

    // Only a mount below the root has paths outside it (no skipped test at the root mount).
    if (prefix !== '')
      it("Tilecast's paths outside its mount are the host's", async () => {
        expect(await send('GET', '/openapi.json')).toMatchObject({ status: 404, body: { host: 'not found' } });
        expect(await send('PATCH', '/activity/build', '{"n":')).toMatchObject({ status: 400, body: { host: 'error' } });
      });
  });
});

describe("the router fits each version's own types, as a host app writes it (no cast; npm run typecheck)", () => {
  it.each([
    ['Express 4', (tilecast: Tilecast) => createServer(express4().use(express4.json()).use('/tilecast', tilecastRouter(tilecast)))],
    ['Express 5', (tilecast: Tilecast) => createServer(express().use(express.json()).use('/tilecast', tilecastRouter(tilecast)))],
  ])('%s', async (_version, build) => {
    const tilecast = createTilecast({ storage: createMemoryStorage(), logger: silentLogger, purgeIntervalMs: 0 });
    const server = build(tilecast);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      expect((await fetch(`${origin}/tilecast/openapi.json`)).status).toBe(200);
      expect((await fetch(`${origin}/openapi.json`)).status).toBe(404);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await tilecast.close();
    }
  });
});
