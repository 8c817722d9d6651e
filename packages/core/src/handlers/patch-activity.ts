import type { TilecastContext } from '../context.js';
import { once } from '../auth/publisher-credentials.js';
import { readJsonBody } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import { updateActivity } from '../services/activities.js';

/** `PATCH /activity/{slug}` */
export const patchActivity: RouteHandler<TilecastContext> = async (context, request, params) => {
  const body = once(() => readJsonBody(request));
  const data = await context.credentials.publishAs(request, async (credential) => updateActivity(context, credential, params.slug!, await body()));
  return { kind: 'json', status: 200, body: data };
};
