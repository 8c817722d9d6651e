import type { TilecastContext } from '../context.js';
import { once } from '../once.js';
import { readJsonBody } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import type { CoreResult } from '../http/types.js';
import { updateActivity } from '../publishing/activities.js';

/**
 * `PATCH /activity/{slug}`. Promise steps, not async functions: on the busiest routes each
 * async layer costs a promise, a suspended frame and microtask turns per request.
 */
export const patchActivity: RouteHandler<TilecastContext> = (context, request, params) => {
  const body = once(() => readJsonBody(request));
  return context.credentials
    .publishAs(request, (credential) => body().then((value) => updateActivity(context, credential, params.slug!, value)))
    .then((data): CoreResult => ({ kind: 'json', status: 200, body: data }));
};
