import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { installServerHandlers, tilecastRouter } from '@tilecast/adapter-express';
import { listen, mount } from '@tilecast/adapter-node-http';
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

/** `express+json`: the host app ran `express.json()` before the Tilecast router. */
export type AdapterName = 'node-http' | 'express' | 'express+json';
export const adapters: AdapterName[] = ['node-http', 'express', 'express+json'];

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
    /** Told of requests, pushes, webhooks, streams, presses (e.g. `@tilecast/metrics`' observer). */
    observer?: TilecastOptions['observer'];
  } = {},
): Promise<ApiServer> {
  const storage = options.storage ?? createMemoryStorage();
  const transport = createRecordingTransport();
  const extra = options.transport;
  const tilecast = createTilecast({
    storage,
    transport: extra === undefined ? transport : alongside(transport, extra),
    logger: options.logger ?? silentLogger,
    clock: options.clock,
    sse: options.sse,
    purgeIntervalMs: 0,
    webhooks: options.webhooks,
    observer: options.observer,
  });
  const { url, close } =
    adapter === 'node-http'
      ? await listen(mount({ '/': tilecast, '/device': tilecast.device }), { port: 0, host: '127.0.0.1' })
      : await listenExpress(tilecast, adapter === 'express+json');
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
  return {
    url: `http://127.0.0.1:${port}/svc`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
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
