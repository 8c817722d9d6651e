import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import express from 'express';
import Fastify from 'fastify';
import { installServerHandlers, tilecastRouter } from '@tilecast/adapter-express';
import { answerClientError, answerConnect, answerExpectation, tilecastFrameworkErrors, tilecastPlugin } from '@tilecast/adapter-fastify';
import { createFetchHandler, toFetchResponse } from '@tilecast/adapter-fetch';
import { installServerHandlers as installNodeHandlers, listen, mount } from '@tilecast/adapter-node-http';
import { errorToResult } from '@tilecast/core/adapter';
import {
  createRecordingTransport,
  createTilecast,
  silentLogger,
  type Clock,
  type DeviceTransport,
  type Logger,
  type RecordingTransport,
  type SseTimings,
  type Storage,
  type Tilecast,
  type TilecastOptions,
} from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';

/**
 * `express+json`: the host app ran `express.json()` before the Tilecast router. `fetch`:
 * the Fetch handler on `@hono/node-server`.
 */
export type AdapterName = 'node-http' | 'express' | 'express+json' | 'fastify' | 'fetch';
export const adapters: AdapterName[] = ['node-http', 'express', 'express+json', 'fastify', 'fetch'];

export interface ApiServer {
  url: string;
  tilecast: Tilecast;
  storage: Storage;
  transport: RecordingTransport;
  close(): Promise<void>;
}

/** The real core on memory storage, served over HTTP on port 0 through one adapter. */
export async function startApi(
  adapter: AdapterName,
  options: {
    clock?: Clock;
    sse?: Partial<SseTimings>;
    storage?: Storage;
    logger?: Logger;
    webhooks?: TilecastOptions['webhooks'];
    /** A transport of the host's (e.g. APNs to its test double), given every push as well as the recorder. */
    transport?: DeviceTransport;
    /**
     * Transports of the host's given to Tilecast as a list (e.g. APNs and FCM), each observed
     * and dead-lettered under its own name; the recorder is one more of them.
     */
    transports?: readonly DeviceTransport[];
    /** Told of requests, pushes, webhooks, streams, presses (e.g. `@tilecast/metrics`' observer). */
    observer?: TilecastOptions['observer'];
  } = {},
): Promise<ApiServer> {
  const storage = options.storage ?? createMemoryStorage();
  const transport = createRecordingTransport();
  const extra = options.transport;
  const tilecast = createTilecast({
    storage,
    transport: options.transports !== undefined ? [transport, ...options.transports] : extra === undefined ? transport : alongside(transport, extra),
    logger: options.logger ?? silentLogger,
    clock: options.clock,
    sse: options.sse,
    purgeIntervalMs: 0,
    webhooks: options.webhooks,
    observer: options.observer,
  });
  const { url, close } = await listenThrough(adapter, tilecast);
  return {
    url,
    tilecast,
    storage,
    transport,
    async close() {
      await close();
      await tilecast.close();
    },
  };
}

/** One transport that hands every push to both (the recorder first). */
function alongside(first: DeviceTransport, second: DeviceTransport): DeviceTransport {
  return {
    pushActivity: async (deviceId, push) => {
      await Promise.all([first.pushActivity(deviceId, push), second.pushActivity(deviceId, push)]);
    },
    pushWidget: async (deviceId, push) => {
      await Promise.all([first.pushWidget(deviceId, push), second.pushWidget(deviceId, push)]);
    },
  };
}

/** Tilecast (the owner's API and, under `/device`, the phones') served through `adapter`. */
function listenThrough(adapter: AdapterName, tilecast: Tilecast): Promise<{ url: string; close(): Promise<void> }> {
  switch (adapter) {
    case 'node-http':
      return listen(mount({ '/': tilecast, '/device': tilecast.device }), { port: 0, host: '127.0.0.1' });
    case 'express':
    case 'express+json':
      return listenExpress(tilecast, adapter === 'express+json');
    case 'fastify':
      return listenFastify(tilecast);
    case 'fetch':
      return listenFetch(tilecast);
  }
}

/**
 * A Fastify app with the plugin registered under a prefix, and what its README gives a
 * host for Node's and Fastify's own refusals. Its own 404 and error handler answer in the
 * service's shape, as the Express host's do.
 */
async function listenFastify(tilecast: Tilecast): Promise<{ url: string; close(): Promise<void> }> {
  const hostRefusal = { detail: 'Refused by the host app' };
  const app = Fastify({
    frameworkErrors: tilecastFrameworkErrors((error, _request, reply) => void reply.code(error.statusCode ?? 400).send(hostRefusal)),
    clientErrorHandler: answerClientError,
  });
  app.server.on('connect', answerConnect);
  app.server.on('checkExpectation', answerExpectation);
  app.setNotFoundHandler((_request, reply) => void reply.code(404).send({ detail: 'Not Found' }));
  app.setErrorHandler((error: { statusCode?: number }, _request, reply) => void reply.code(error.statusCode ?? 500).send(hostRefusal));
  await app.register(tilecastPlugin, { prefix: '/svc', handler: tilecast });
  await app.register(tilecastPlugin, { prefix: '/svc/device', handler: tilecast.device });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/svc`,
    close: async () => {
      app.server.closeAllConnections();
      await app.close();
    },
  };
}

/**
 * The Fetch handler under a base path, on `@hono/node-server` (the server Hono apps run on
 * in Node): a request it cannot make a Fetch `Request` of (a header value Fetch refuses,
 * say) gets the core's `400`, and Node's own refusals the JSON shape, as the README shows.
 */
async function listenFetch(tilecast: Tilecast): Promise<{ url: string; close(): Promise<void> }> {
  const handler = createFetchHandler({ '/': tilecast, '/device': tilecast.device }, { basePath: '/svc' });
  const errorHandler = () => toFetchResponse(errorToResult({ kind: 'bad_request' }));
  const server = createServer(getRequestListener(handler, { errorHandler }));
  installNodeHandlers(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/svc`, close: () => closeServer(server) };
}

/** Express app with the router mounted under a prefix, as a host app would. */
async function listenExpress(tilecast: Tilecast, preParse: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  if (preParse) app.use(express.json({ limit: '1mb' }));
  app.use('/svc/device', tilecastRouter(tilecast.device));
  app.use('/svc', tilecastRouter(tilecast));
  // The host's own 404: Tilecast hands it every path it has no route for. JSON in the
  // service's shape, so that the e2e and fuzz checks see one error shape on every adapter.
  app.use((_req: express.Request, res: express.Response) => void res.status(404).json({ detail: 'Not Found' }));
  // And its own error handler: its `express.json()` refusing a body sent to a path that is
  // not Tilecast's is the host's to answer (in the same shape here).
  app.use((error: { status?: number }, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(error.status ?? 500).json({ detail: 'Refused by the host app' });
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  installServerHandlers(server, app); // as the adapter's README tells a host app to
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/svc`, close: () => closeServer(server) };
}

export interface Reply {
  status: number;
  headers: Headers;
  body: any;
}

export async function request(
  server: { url: string },
  method: string,
  path: string,
  options: { token?: string; authorization?: string; body?: unknown; raw?: string | Uint8Array; contentType?: string | null } = {},
): Promise<Reply> {
  const headers: Record<string, string> = {};
  const authorization = options.authorization ?? (options.token !== undefined ? `Token ${options.token}` : undefined);
  if (authorization !== undefined) headers.authorization = authorization;
  const body = options.raw ?? (options.body !== undefined ? JSON.stringify(options.body) : undefined);
  if (body !== undefined && options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
  const response = await fetch(server.url + path, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text for the assertion message
  }
  return { status: response.status, headers: response.headers, body: parsed };
}

/** Ends a test server at once: its kept-alive and streaming connections too. */
function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
