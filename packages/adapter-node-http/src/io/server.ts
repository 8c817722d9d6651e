/** Starting and stopping a `node:http` server: Node's own lifecycle, nothing of Tilecast's but the listener. */
import { createServer, type RequestListener, type Server, type ServerOptions } from 'node:http';
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
  /**
   * Time a client gets to send a whole request, headers and body, in milliseconds: past it
   * the request is answered `408` and its connection closed. Default 20000. A request ends
   * when its body is complete, so a response that lasts (an event stream) is not cut by it.
   */
  requestTimeoutMs?: number;
  /** Time a client gets to send the request line and headers, in milliseconds (at most `requestTimeoutMs`). Default 10000. */
  headersTimeoutMs?: number;
  /** How long an idle kept-alive connection stays open after a response, in milliseconds. Default 5000. */
  keepAliveTimeoutMs?: number;
}

/** The timeouts {@link listen} sets when its options leave them out (docs/contract/limits-and-errors.md#body-stall-timeout, docs/contract/limits-and-errors.md#server-timeouts). */
export const DEFAULT_TIMEOUTS = { requestTimeoutMs: 20_000, headersTimeoutMs: 10_000, keepAliveTimeoutMs: 5_000 } as const;

/** Node checks the request and header deadlines every 30 s by default: a stalled body would wait up to that much longer. */
const MAX_CHECK_INTERVAL_MS = 1_000;

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
  const server = createServer(serverOptions(options), listener);
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

/**
 * Node's server options for the timeouts of {@link ListenOptions}. Node's own defaults
 * (5 min for a request, checked every 30 s) would hold a stalled body for 307 s; here it is
 * answered `408` within `requestTimeoutMs` and one check interval.
 */
function serverOptions(options: ListenOptions): ServerOptions {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_TIMEOUTS.requestTimeoutMs;
  // Node refuses a header deadline past the request deadline; 0 turns a deadline off.
  const headersTimeout =
    options.headersTimeoutMs ?? (requestTimeout > 0 ? Math.min(DEFAULT_TIMEOUTS.headersTimeoutMs, requestTimeout) : DEFAULT_TIMEOUTS.headersTimeoutMs);
  return {
    requestTimeout,
    headersTimeout,
    keepAliveTimeout: options.keepAliveTimeoutMs ?? DEFAULT_TIMEOUTS.keepAliveTimeoutMs,
    connectionsCheckingInterval: checkInterval([requestTimeout, headersTimeout]),
  };
}

/** A quarter of the shortest deadline that is on, at most 1 s: each deadline is overshot by at most that. */
function checkInterval(deadlines: number[]): number {
  const shortest = Math.min(...deadlines.filter((ms) => ms > 0), MAX_CHECK_INTERVAL_MS * 4);
  return Math.max(1, Math.floor(shortest / 4));
}
