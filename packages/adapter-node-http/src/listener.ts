/** Serving Tilecast from `node:http`: a request listener, several mounts, a server. */
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorToResult, ownsPath } from '@tilecast/core/adapter';
import { splitUrl } from './request.js';
import { handleNodeRequest, writeCoreResult, type TilecastHandler } from './response.js';
import { installServerHandlers } from './server-handlers.js';

export interface RequestListenerOptions {
  /** Serve Tilecast under this path prefix, e.g. `/api`. Default: the root. */
  basePath?: string;
  /**
   * Serves every request that is not Tilecast's: a path outside `basePath`, or one under it
   * that no Tilecast route has (a Tilecast path with another method is Tilecast's `405`).
   * Your own listener, or your own 404. Default: `404 {"detail":"Not Found"}`.
   */
  notFound?: RequestListener;
}

/**
 * A `node:http` request listener serving Tilecast. Pass it to `http.createServer`, or call
 * it from your own listener; with `notFound`, it hands back what is not Tilecast's.
 */
export function createRequestListener(tilecast: TilecastHandler, options: RequestListenerOptions = {}): RequestListener {
  return mount({ [options.basePath ?? '/']: tilecast }, options);
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
    url: `http://${hostInUrl}:${port}${normalizeBasePath(options.basePath)}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface MountOptions {
  /** Serves every request that no mount's handler has a route for. Default: `404 {"detail":"Not Found"}`. */
  notFound?: RequestListener;
}

/**
 * One listener for several handlers, each under its own path prefix, e.g.
 * `mount({ '/': tilecast, '/device': tilecast.device })`. A request goes to the handler of
 * the longest prefix it is under that has a route for its path (see `owns`), else to
 * `notFound`.
 */
export function mount(handlers: Record<string, TilecastHandler>, options: MountOptions = {}): RequestListener {
  const mounts = Object.entries(handlers)
    .map(([path, handler]) => ({ prefix: normalizeBasePath(path), handler }))
    .sort((a, b) => b.prefix.length - a.prefix.length);
  const notFound = options.notFound ?? answerNotFound;
  // A loop, not `find` with a closure: this runs for every request.
  return (req, res) => {
    const { path, query } = splitUrl(req.url ?? '/');
    for (const { prefix, handler } of mounts) {
      if (!isUnder(path, prefix)) continue;
      const relative = path.slice(prefix.length) || '/';
      if (!ownsPath(handler, relative)) continue;
      if (prefix === '') return void handleNodeRequest(handler, req, res);
      return void handleNodeRequest(handler, req, res, { url: query === '' ? relative : `${relative}?${query}` });
    }
    notFound(req, res);
  };
}

function answerNotFound(_req: IncomingMessage, res: ServerResponse): void {
  void writeCoreResult(res, errorToResult({ kind: 'route_not_found' }));
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
