import type { IncomingMessage, ServerResponse } from 'node:http';
import { jsonDecodeError, ownsPath, splitTarget, type ServiceError } from '@tilecast/core/adapter';
import { handleNodeRequest, type TilecastHandler } from '@tilecast/adapter-node-http';

export type { TilecastHandler } from '@tilecast/adapter-node-http';
/**
 * For the server your app listens on: `installServerHandlers(app.listen(port), app)` gives
 * Node's own refusals (oversized headers, malformed requests, `CONNECT`) the JSON error
 * shape and sends `100 Continue` only once something reads the body (see the README).
 */
export { installServerHandlers } from '@tilecast/adapter-node-http';

/**
 * Express middleware serving Tilecast, mountable at any path, the root included:
 * `app.use('/api', tilecastRouter(tilecast))`. It serves Tilecast's routes only; every
 * other request goes on to the host app's next routes and 404 handler (`next()`).
 *
 * It is a pair: the handler, and an error handler that hands body-parser's refusals
 * of requests to Tilecast's routes (from an `express.json()` the host app ran first)
 * to the core, which answers them with the specified statuses, in the specified order,
 * instead of Express's HTML error page. Every other error goes on to the host app's
 * error handlers. Express accepts the pair wherever it accepts one middleware.
 */
export function tilecastRouter(tilecast: TilecastHandler): [TilecastMiddleware, TilecastErrorMiddleware] {
  const handler: TilecastMiddleware = (req, res, next) => {
    if (!isTilecastRoute(tilecast, req)) return next();
    void handleNodeRequest(tilecast, req, res, { parsedBody: preParsedBody(req) });
  };
  const errorHandler: TilecastErrorMiddleware = (error, req, res, next) => {
    const refusal = isTilecastRoute(tilecast, req) ? bodyParserRefusal(error, req) : null;
    if (refusal === null || res.headersSent) return next(error);
    // body-parser refuses a charset before it reads the body, and refuses `utf8`, which is
    // UTF-8 to Tilecast (docs/contract/limits-and-errors.md#body-charset-utf8): the body is
    // still unread, so the core reads it and judges the media type by its own rule.
    if (refusal === UNREAD_BODY) return void handleNodeRequest(tilecast, req, res);
    // A body that express.json() read and could not take (not JSON, or, in its default strict
    // mode, JSON that is not an object or array): the core parses the text itself, so that it
    // answers as without a host parser (`dict_type` for `"abc"`, `413` over the limit).
    if (refusal instanceof Uint8Array) return void handleNodeRequest(tilecast, req, res, { parsedBody: refusal });
    void handleNodeRequest(tilecast, req, res, { bodyRefusal: refusal });
  };
  return [handler, errorHandler];
}

/**
 * Express middleware, typed with Node's request and response only, so that it fits the
 * types of Express 4 and of Express 5 alike (each passes its own subclasses of them).
 */
export type TilecastMiddleware = (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;
/** Express error middleware (four parameters), typed as `TilecastMiddleware` is. */
export type TilecastErrorMiddleware = (error: unknown, req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void;

/** The core's answer to "is this mine?", for the path relative to where the router is mounted. */
function isTilecastRoute(tilecast: TilecastHandler, req: IncomingMessage): boolean {
  return ownsPath(tilecast, splitTarget(req.url ?? '/').path);
}

/** What an earlier body parser left in `req.body`; `undefined` when none ran for this request. */
function preParsedBody(req: IncomingMessage): unknown {
  return (req as { body?: unknown }).body;
}

/** A body-parser refusal made before reading the body: the core reads it instead. */
const UNREAD_BODY = Symbol('unread body');

/** body-parser's error types, mapped to the service's refusals. */
function bodyParserRefusal(error: unknown, req: IncomingMessage): ServiceError | typeof UNREAD_BODY | Uint8Array | null {
  const { type, expose, body } = (error ?? {}) as { type?: unknown; expose?: unknown; body?: unknown };
  switch (type) {
    case 'charset.unsupported':
      return UNREAD_BODY;
    case 'entity.parse.failed':
      // body-parser keeps the text it decoded on the error.
      return typeof body === 'string' ? Buffer.from(body, 'utf8') : jsonDecodeError();
    case 'entity.too.large':
      return { kind: 'payload_too_large' };
    case 'request.aborted':
      return { kind: 'request_aborted' }; // the client left mid-body: logged as an abort
    case 'encoding.unsupported':
      return { kind: 'unsupported_media_type' };
    default:
      // A compressed body that does not inflate: body-parser wraps zlib's error in a client
      // error (`expose`, as http-errors marks them) with no `type`. Tilecast takes no
      // compressed body, so the core refuses it as it refuses every other (415), instead
      // of Express's HTML error page.
      return expose === true && isCompressed(req) ? { kind: 'unsupported_media_type' } : null;
  }
}

function isCompressed(req: IncomingMessage): boolean {
  const encoding = req.headers['content-encoding'];
  return encoding !== undefined && encoding.trim() !== '' && encoding.trim().toLowerCase() !== 'identity';
}
