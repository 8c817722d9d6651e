import { authenticateAccount } from '../auth/authenticate.js';
import type { TilecastContext } from '../context.js';
import { readJsonBody } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import { updateActivity } from '../services/activities.js';

/** `PATCH /activity/{slug}` */
export const patchActivity: RouteHandler<TilecastContext> = async (context, request, params) => {
  const account = await authenticateAccount(context.storage, request);
  const body = await readJsonBody(request);
  const data = await updateActivity(context, account, params.slug!, body);
  return { kind: 'json', status: 200, body: data };
};
