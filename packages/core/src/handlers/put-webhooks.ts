import type { TilecastContext } from '../context.js';
import { readJsonBody } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import { putWebhookMap } from '../webhooks/map-service.js';

/** `PUT /widget/{slug}/webhooks` */
export const putWebhooks: RouteHandler<TilecastContext> = async (context, request, params) => {
  const { account } = await context.credentials.authenticate(request);
  const body = await readJsonBody(request);
  return { kind: 'json', status: 200, body: await putWebhookMap(context, account, params.slug!, body) };
};
