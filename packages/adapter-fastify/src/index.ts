/**
 * `@tilecast/adapter-fastify`: serves Tilecast from a Fastify app as an encapsulated
 * plugin. It only translates: the Node I/O comes from `@tilecast/adapter-node-http`,
 * every rule from `@tilecast/core`.
 */
import { METHODS, type Server } from 'node:http';
import type { FastifyError, FastifyPluginCallback, FastifyReply, FastifyRequest } from 'fastify';
import { createMountTable, ownsPath, splitTarget } from '@tilecast/core/adapter';
import { handleNodeRequest, type TilecastHandler } from '@tilecast/adapter-node-http';

export type { TilecastHandler } from '@tilecast/adapter-node-http';
/**
 * Node's own refusals in Tilecast's JSON error shape, for the server Fastify creates:
 * `Fastify({ clientErrorHandler: answerClientError })` (oversized headers, malformed
 * requests), `app.server.on('connect', answerConnect)` and
 * `app.server.on('checkExpectation', answerExpectation)` (see the README).
 */
export { answerClientError, answerConnect, answerExpectation } from '@tilecast/adapter-node-http';

export interface TilecastPluginOptions {
  /** What to serve under the registration's `prefix`: the Tilecast instance, or its `device` handler. */
  handler: TilecastHandler;
}

/** Every registration of the plugin, by the server it serves on: where `tilecastFrameworkErrors` looks. */
const registrations = new WeakMap<Server, Record<string, TilecastHandler>>();

/**
 * A Fastify plugin serving Tilecast under the registration's `prefix`:
 * `app.register(tilecastPlugin, { prefix: '/tilecast', handler: tilecast })`.
 *
 * Encapsulated (register it, do not wrap it in `fastify-plugin`): its one wildcard route
 * and its pass-through body parser stay inside it, so the host keeps its own routes,
 * parsers, hooks, 404 and error handlers. A request for Tilecast is handed over in a
 * route-level `preParsing` hook, after the host's `onRequest` and `preParsing` hooks and
 * before Fastify looks at the body (its own `415` or `400` would come before Tilecast's
 * authentication): the core reads the raw body and answers in the specified order. Any
 * other path under the prefix goes to the host's 404 handler.
 */
export const tilecastPlugin: FastifyPluginCallback<TilecastPluginOptions> = (instance, options, done) => {
  const handler = options.handler;
  const prefix = instance.prefix;
  const registered = registrations.get(instance.server) ?? {};
  registrations.set(instance.server, Object.assign(registered, { [prefix]: handler }));
  // Only paths the handler does not own get this far (the hook answers the rest): they
  // reach the host's 404 handler with their body unread, as for any path without a route.
  instance.removeAllContentTypeParsers();
  instance.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null));
  const serve = (request: FastifyRequest, reply: FastifyReply, _payload: unknown, next: () => void) => {
    const url = relativeUrl(request.url, prefix);
    if (!ownsPath(handler, splitTarget(url).path)) return next();
    handOver(handler, request, reply, url);
    next();
  };
  const notOurs = (_request: FastifyRequest, reply: FastifyReply) => void reply.callNotFound();
  routeEveryMethod(instance);
  // Every method Fastify routes: the core answers `405` with `Allow` for a known path.
  // `/` under the prefix is the prefix itself (with and without its trailing slash).
  for (const url of ['/', '/*']) {
    instance.route({ method: instance.supportedMethods, url, exposeHeadRoute: false, preParsing: serve, handler: notOurs });
  }
  done();
};

/**
 * Fastify routes only some methods (`GET`, `POST`, ... `QUERY`) and sends any other that
 * Node parses (`PURGE`, `PROPFIND`, `LINK`, ...) to the host's 404 handler, before any
 * plugin sees it. A known path answers every method with the core's `405` and `Allow`, as
 * on every adapter (docs/contract/limits-and-errors.md#method-not-allowed), so the others are made routable. This adds
 * to the server's methods (Fastify has one set per server): a path without a route still
 * gets the host's 404 for them. `CONNECT` never reaches a route (see `answerConnect`).
 */
function routeEveryMethod(instance: { supportedMethods: string[]; addHttpMethod(method: string): unknown }): void {
  const supported = new Set(instance.supportedMethods);
  for (const method of METHODS) if (method !== 'CONNECT' && !supported.has(method)) instance.addHttpMethod(method);
}

/** Fastify's `frameworkErrors` option: called for what Fastify refuses before any route or hook runs. */
export type FrameworkErrorHandler = (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void;

/**
 * For Fastify's `frameworkErrors` option: `Fastify({ frameworkErrors: tilecastFrameworkErrors() })`.
 * Fastify refuses a request target that is not valid percent-encoding (`FST_ERR_BAD_URL`)
 * before any route or hook runs; with this option, such a request to one of Tilecast's
 * paths gets Tilecast's own answer, as on every other adapter (the core keeps a malformed
 * escape as written, so `PATCH /widget/%E0%A4%A` is the route's `404 Widget not found`
 * after authentication). Every other request and framework error goes to `otherwise`
 * (default: Fastify's own answer, `reply.send(error)`).
 */
export function tilecastFrameworkErrors(otherwise: FrameworkErrorHandler = (error, _request, reply) => void reply.send(error)): FrameworkErrorHandler {
  return (error, request, reply) => {
    const mounted = error.code === 'FST_ERR_BAD_URL' ? registrations.get(request.server.server) : undefined;
    const { path, query } = splitTarget(request.url);
    const found = mounted === undefined ? undefined : createMountTable(mounted)(path);
    if (found === undefined) return otherwise(error, request, reply);
    handOver(found.handler, request, reply, query === '' ? found.path : `${found.path}?${query}`);
  };
}

/** Hands the raw request to Tilecast, which writes the raw response. */
function handOver(handler: TilecastHandler, request: FastifyRequest, reply: FastifyReply, url: string): void {
  // Headers the host's hooks set (CORS, say) live on the reply until Fastify sends it;
  // Tilecast writes the raw response, so they are carried over first.
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
  reply.hijack();
  void handleNodeRequest(handler, request.raw, reply.raw, { url });
}

/** The request target relative to the prefix the route matched under (`/` for the prefix itself). */
function relativeUrl(url: string, prefix: string): string {
  const rest = url.slice(prefix.length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}
