import type { TilecastContext } from '../context.js';
import { openEventStream } from '../events/event-stream.js';
import type { RouteHandler } from '../http/router.js';

/** `GET /events` */
export const getEvents: RouteHandler<TilecastContext> = async (context, request) => {
  const { account } = await context.credentials.authenticate(request);
  return openEventStream(context, account, request);
};
