import type { TilecastContext } from '../context.js';
import type { RouteHandler } from '../http/router.js';
import type { CoreResult } from '../http/types.js';

/** Probes are never cached: each answer is about this instance, now. */
const NO_STORE = { 'cache-control': 'no-store' };

const OK: CoreResult = { kind: 'json', status: 200, body: { status: 'ok' }, headers: NO_STORE };

/** `GET /healthz`: the process is up and serving. No store call, no authentication. */
export const getHealthz: RouteHandler<TilecastContext> = () => Promise.resolve(OK);

/**
 * `GET /readyz`: `200 {"status":"ok"}` when the instance takes traffic, with `"detail"`
 * lines when something is worth an operator's eye without making it unready
 * (docs/contract/deployment.md#readyz-detail); `503
 * {"status":"unavailable","reason":"draining"|"storage"}` while it shuts down or when the
 * store does not answer a cheap read within the deadline. No authentication.
 */
export const getReadyz: RouteHandler<TilecastContext> = async (context) => {
  const readiness = await context.readiness.check();
  if (readiness.ready) return readiness.detail.length === 0 ? OK : { ...OK, body: { status: 'ok', detail: readiness.detail } };
  return { kind: 'json', status: 503, body: { status: 'unavailable', reason: readiness.reason }, headers: NO_STORE };
};
