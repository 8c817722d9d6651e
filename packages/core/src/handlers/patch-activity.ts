import type { TilecastContext } from '../context.js';
import { once } from '../once.js';
import { readJsonBodySized } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import type { CoreResult } from '../http/types.js';
import { updateActivity } from '../publishing/activities.js';

/**
 * `PATCH /activity/{slug}`. Promise steps, not async functions: on the busiest routes each
 * async layer costs a promise, a suspended frame and microtask turns per request.
 */
export const patchActivity: RouteHandler<TilecastContext> = (context, request, params) => {
  // The sized read, not `readJsonBody`: its `.then` to the bare value would be one more step.
  const body = once(() => readJsonBodySized(request));
  return context.credentials
    .publishAs(request, (credential) => body().then((read) => updateActivity(context, credential, params.slug!, read.value)))
    .then((data): CoreResult => ({ kind: 'json', status: 200, body: data }));
};
