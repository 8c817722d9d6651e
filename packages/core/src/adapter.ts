/**
 * `@tilecast/core/adapter`: the seam for adapter authors. An adapter turns its framework's
 * request into a `CoreRequest`, calls `handle`, and writes the `CoreResult` it gets back
 * (an event stream through an `SseSink`). Every HTTP rule stays in the core: an adapter
 * that must answer by itself (a refusal its server makes before the core sees the request)
 * takes the answer from `errorToResult`, the one error table.
 */
export type * from './http/types.js';
export type { RequestHandler } from './tilecast.js';
export type { ServiceError, FieldError } from './errors.js';
export { jsonDecodeError } from './errors.js';
export { errorToResult, internalErrorResult } from './http/error-response.js';
export { BODY_LIMIT_BYTES, isJsonMediaType, readJsonBody, readJsonBodySized } from './http/body.js';
