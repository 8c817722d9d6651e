import type { TilecastContext } from '../context.js';
import type { RouteHandler } from '../http/router.js';
import { deleteWebhookMap } from '../webhooks/map-service.js';

/** `DELETE /widget/{slug}/webhooks` */
export const deleteWebhooks: RouteHandler<TilecastContext> = async (context, request, params) => {
  const { account } = await context.credentials.authenticate(request);
  await deleteWebhookMap(context, account, params.slug!);
  return { kind: 'empty', status: 204 };
};
