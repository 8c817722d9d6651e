export type * from './types.js';
export { BODY_LIMIT_BYTES, isJsonMediaType, readJsonBody, readJsonBodySized } from './body.js';
export { errorToResult, internalErrorResult } from './error-response.js';
