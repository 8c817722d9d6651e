import { authenticateAccount } from '../auth/authenticate.js';
import type { TilecastContext } from '../context.js';
import { readJsonBodySized } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import { updateWidget } from '../services/widgets.js';

/** `PATCH /widget/{slug}` */
export const patchWidget: RouteHandler<TilecastContext> = async (context, request, params) => {
  const account = await authenticateAccount(context.storage, request);
  const { value, byteLength } = await readJsonBodySized(request);
  const data = await updateWidget(context, account, params.slug!, value, byteLength);
  return { kind: 'json', status: 200, body: data };
};
