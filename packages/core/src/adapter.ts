/**
 * `@tilecast/core/adapter`: the seam for adapter authors. An adapter turns its framework's
 * request into a `CoreRequest`, calls `handle`, and writes the `CoreResult` it gets back
 * (an event stream through an `SseSink`). Every HTTP rule stays in the core: an adapter
 * that must answer by itself (a refusal its server makes before the core sees the request)
 * takes the answer from `errorToResult`, the one error table. Status and headers of every
 * result come from `responseHead`; which handler a path goes to from `createMountTable`.
 */
import type { RequestHandler } from './tilecast.js';

export type * from './http/types.js';
export type { RequestHandler } from './tilecast.js';
export type { ServiceError, FieldError } from './errors.js';
export { jsonDecodeError } from './errors.js';
export { errorToResult, internalErrorResult } from './http/error-response.js';
export { BODY_LIMIT_BYTES, readJsonBody } from './http/body.js';
export { responseHead } from './http/response-head.js';
export type { ResponseHead } from './http/response-head.js';
export { createMountTable, mountPrefix, splitTarget } from './http/mounts.js';
export type { MountableHandler, MountMatch } from './http/mounts.js';

/**
 * Whether a request for `path` (relative to where `handler` is mounted, without the query)
 * is the handler's to answer. Adapters ask it before translating a request, and hand
 * every other one to their host (Express's `next()`, a `notFound` listener, ...). A
 * handler without `owns` claims every path.
 */
export function ownsPath(handler: RequestHandler, path: string): boolean {
  return handler.owns === undefined || handler.owns(path);
}
