/** Serving Tilecast from `node:http`: a request listener, several mounts, a server. */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorToResult } from '@tilecast/core/adapter';
import { splitUrl } from './request.js';
import { handleNodeRequest, writeCoreResult, type TilecastHandler } from './response.js';
import { installServerHandlers } from './server-handlers.js';

export interface RequestListenerOptions {
  /** Serve Tilecast under this path prefix, e.g. `/api`. Default: the root. */
  basePath?: string;
}

/**
 * A `node:http` request listener serving Tilecast. Pass it to `http.createServer`,
 * or call it from your own listener for the requests you route to Tilecast.
 */
export function createRequestListener(tilecast: TilecastHandler, options: RequestListenerOptions = {}): RequestListener {
  const basePath = normalizeBasePath(options.basePath);
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? '/';
    if (basePath === '') return void handleNodeRequest(tilecast, req, res);
    const relative = stripBasePath(url, basePath);
    if (relative === null) return void writeCoreResult(res, errorToResult({ kind: 'route_not_found' }));
    return void handleNodeRequest(tilecast, req, res, { url: relative });
  };
}

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
 * `createRequestListener` mounts.
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
    url: `http://${hostInUrl}:${port}${normalizeBasePath(options.basePath)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * One listener for several handlers, each under its own path prefix; the longest prefix
 * that matches wins, e.g. `mount({ '/': tilecast, '/device': tilecast.device })`.
 */
export function mount(handlers: Record<string, TilecastHandler>): RequestListener {
  const mounts = Object.entries(handlers)
    .map(([path, handler]) => ({ prefix: normalizeBasePath(path), listener: createRequestListener(handler, { basePath: path }) }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  // A loop, not `find` with a closure: this runs for every request.
  return (req, res) => {
    const path = splitUrl(req.url ?? '/').path;
    for (const { prefix, listener } of mounts) if (isUnder(path, prefix)) return listener(req, res);
    void writeCoreResult(res, errorToResult({ kind: 'route_not_found' }));
  };
}

function normalizeBasePath(basePath: string | undefined): string {
  if (basePath === undefined || basePath === '' || basePath === '/') return '';
  const withSlash = basePath.startsWith('/') ? basePath : `/${basePath}`;
  return withSlash.endsWith('/') ? withSlash.slice(0, -1) : withSlash;
}

/** True when `path` is `prefix` itself or below it (every path is under the root, `''`). */
function isUnder(path: string, prefix: string): boolean {
  return prefix === '' || (path.startsWith(prefix) && (path.length === prefix.length || path.charCodeAt(prefix.length) === SLASH));
}

const SLASH = 0x2f;

/** The request target relative to `basePath`, or null when it lies outside it. */
function stripBasePath(url: string, basePath: string): string | null {
  const { path, query } = splitUrl(url);
  if (!isUnder(path, basePath)) return null;
  const rest = path.slice(basePath.length) || '/';
  return query === '' ? rest : `${rest}?${query}`;
}
