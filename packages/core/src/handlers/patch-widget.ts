import type { TilecastContext } from '../context.js';
import { once } from '../auth/publisher-credentials.js';
import { readJsonBodySized } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import { updateWidget } from '../services/widgets.js';

/** `PATCH /widget/{slug}` */
export const patchWidget: RouteHandler<TilecastContext> = async (context, request, params) => {
  const body = once(() => readJsonBodySized(request));
  const data = await context.credentials.publishAs(request, async (credential) => {
    const { value, byteLength } = await body();
    return updateWidget(context, credential, params.slug!, value, byteLength);
  });
  return { kind: 'json', status: 200, body: data };
};
