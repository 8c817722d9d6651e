/**
 * `@tilecast/adapter-node-http`: serves Tilecast with `node:http`, and holds the Node I/O
 * that every Node adapter shares (the Express and Fastify adapters are built on it):
 * request translation, body reading, the event-stream sink, Node's own refusals.
 */
export { createRequestListener, mount } from './listener.js';
export type { MountOptions, RequestListenerOptions } from './listener.js';
export { DEFAULT_TIMEOUTS, listen } from './io/server.js';
export type { ListenOptions, RunningServer } from './io/server.js';
/**
 * For a server you create yourself: `installServerHandlers(server, listener)` gives Node's
 * own refusals (oversized headers, malformed requests, `CONNECT`) the JSON error shape and
 * sends `100 Continue` only once Tilecast reads the body. `listen` does it for you.
 */
export { installServerHandlers, answerClientError, answerConnect, answerExpectation } from './io/server-handlers.js';
// For adapters built on this one (translate, handle, write).
export { handleNodeRequest, writeCoreResult } from './response.js';
export type { TilecastHandler } from './response.js';
export { toCoreRequest } from './request.js';
export type { ToCoreRequestOptions } from './request.js';
export { readLimited } from './io/body.js';
/** The request target's path and query (the core's `splitTarget`, under its former name here). */
export { splitTarget as splitUrl } from '@tilecast/core/adapter';
