/** Starting and stopping a `node:http` server: Node's own lifecycle, nothing of Tilecast's but the listener. */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mountPrefix } from '@tilecast/core/adapter';
import { createRequestListener, type RequestListenerOptions } from '../listener.js';
import type { TilecastHandler } from '../response.js';
import { installServerHandlers } from './server-handlers.js';

export interface ListenOptions extends RequestListenerOptions {
  /** Default 0 (any free port). */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

export interface RunningServer {
  server: Server;
  /** Base URL of the API, e.g. `http://127.0.0.1:8080` (with the base path, if any). */
  url: string;
  /** Stops accepting connections and closes the open ones (event streams included). */
  close(): Promise<void>;
}

/**
 * Starts a `node:http` server for Tilecast: the shortest way to serve it. Pass the
 * Tilecast instance (or its `device` handler), or a listener built from several
 * `createRequestListener` mounts (`basePath` and `notFound` then belong to that listener).
 */
export async function listen(target: TilecastHandler | RequestListener, options: ListenOptions = {}): Promise<RunningServer> {
  const listener = typeof target === 'function' ? target : createRequestListener(target, options);
  const server = createServer(listener);
  installServerHandlers(server, listener);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    server,
    url: `http://${hostInUrl}:${port}${mountPrefix(options.basePath)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
