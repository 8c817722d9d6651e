// Tilecast under benchmark, served by the adapter named in argv[2] ('node-http' | 'express' |
// 'fastify' | 'fetch', the last in a Hono app on @hono/node-server; 'fetch-direct' without Hono),
// on the storage named in argv[3]: 'memory' (default) or 'postgres' (at DATABASE_URL; only
// when asked for, so a DATABASE_URL in the environment never changes the memory scenarios).
// Reports the demo tokens to the runner.
import { mount } from '@tilecast/adapter-node-http';
import { createTilecast, silentLogger } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { serve } from '../lib/serve.mjs';

const adapter = process.argv[2] ?? 'node-http';
const storage = process.argv[3] === 'postgres' ? await postgresStorage(process.env.DATABASE_URL) : createMemoryStorage();
// BENCH_PERIODIC=off (bench/tools/cost-check.mjs): no work on timers (purge rounds, credential
// re-checks, pings), whose amount grows with how long a count takes on a loaded machine.
const periodic = process.env.BENCH_PERIODIC === 'off' ? { purgeIntervalMs: 0, credentialCheckMs: 3_600_000, sse: { pingMs: 3_600_000 } } : {};
const tilecast = createTilecast({ storage, logger: silentLogger, ...periodic });
const m = tilecast.management;
const { token } = await m.createAccount({ id: 'bench', activityQuota: 10 });
const { token: deviceToken } = await m.registerDevice({ id: 'bench-phone', account: 'bench' });
await m.createWidget({ account: 'bench', slug: 'lights', template: 'switchboard' });
await m.createActivity({ account: 'bench', slug: 'order', template: 'progress' });

let listener;
let server;
if (adapter === 'fastify') {
  // As a host app registers it: at the root and, for the phones, under /device.
  const { default: Fastify } = await import('fastify');
  const { tilecastPlugin } = await import('@tilecast/adapter-fastify');
  const app = Fastify();
  await app.register(tilecastPlugin, { handler: tilecast });
  await app.register(tilecastPlugin, { prefix: '/device', handler: tilecast.device });
  await app.ready();
  server = app.server;
} else if (adapter === 'fetch') {
  // A Hono app on @hono/node-server, Tilecast as its middleware (the adapter's README).
  const { getRequestListener } = await import('@hono/node-server');
  const { Hono } = await import('hono');
  const { createFetchHandler } = await import('@tilecast/adapter-fetch');
  const handler = createFetchHandler({ '/': tilecast, '/device': tilecast.device }, { notFound: () => undefined });
  const app = new Hono();
  app.use(async (c, next) => (await handler(c.req.raw)) ?? next());
  listener = getRequestListener(app.fetch);
} else if (adapter === 'fetch-direct') {
  // For tools/compare.mjs: the Fetch handler as @hono/node-server's whole app, without Hono.
  const { getRequestListener } = await import('@hono/node-server');
  const { createFetchHandler } = await import('@tilecast/adapter-fetch');
  listener = getRequestListener(createFetchHandler({ '/': tilecast, '/device': tilecast.device }));
} else if (adapter === 'express') {
  // Loaded only here: a node:http server carries no express, as an embedder's would not.
  const { default: express } = await import('express');
  const { tilecastRouter } = await import('@tilecast/adapter-express');
  const app = express();
  app.use('/device', tilecastRouter(tilecast.device));
  app.use('/', tilecastRouter(tilecast));
  listener = app;
} else {
  listener = mount({ '/': tilecast, '/device': tilecast.device });
}
await serve(listener, { token, deviceToken }, server);

/** D1: PostgreSQL storage on a default pool, in a schema of its own that starts empty. */
async function postgresStorage(url) {
  const { default: pg } = await import('pg');
  const { createPostgresStorage, migrate } = await import('@tilecast/storage-postgres');
  const pool = new pg.Pool({ connectionString: url });
  await pool.query('DROP SCHEMA IF EXISTS tilecast_bench CASCADE');
  await migrate(pool, { schema: 'tilecast_bench' });
  return createPostgresStorage({ pool, schema: 'tilecast_bench' });
}
