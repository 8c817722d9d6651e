import type { TilecastContext } from '../context.js';
import type { RouteHandler } from '../http/router.js';
import { getWebhookMap } from '../webhooks/map-service.js';

/** `GET /widget/{slug}/webhooks` */
export const getWebhooks: RouteHandler<TilecastContext> = async (context, request, params) => {
  const { account } = await context.credentials.authenticate(request);
  return { kind: 'json', status: 200, body: await getWebhookMap(context, account, params.slug!) };
};
