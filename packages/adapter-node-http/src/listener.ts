/** Serving Tilecast from `node:http`: a request listener, several mounts. */
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { createMountTable, errorToResult, splitTarget } from '@tilecast/core/adapter';
import { handleNodeRequest, writeCoreResult, type TilecastHandler } from './response.js';

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
  const find = createMountTable(handlers);
  const notFound = options.notFound ?? answerNotFound;
  return (req, res) => {
    const { path, query } = splitTarget(req.url ?? '/');
    const found = find(path);
    if (found === undefined) return notFound(req, res);
    // The target is split once here, not again from a rebuilt URL.
    void handleNodeRequest(found.handler, req, res, { target: { path: found.path, query } });
  };
}

function answerNotFound(_req: IncomingMessage, res: ServerResponse): void {
  void writeCoreResult(res, errorToResult({ kind: 'route_not_found' }));
}
