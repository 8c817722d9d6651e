export type * from './types.js';
export { BODY_LIMIT_BYTES, isJsonMediaType, readJsonBody } from './body.js';
export { errorToResult, internalErrorResult } from './error-response.js';
