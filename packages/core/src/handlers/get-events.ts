import type { TilecastContext } from '../context.js';
import { openEventStream } from '../events/event-stream.js';
import type { RouteHandler } from '../http/router.js';
import { streamOrOutage } from '../sse/outage.js';

/** `GET /events`; a store outage at any step, the token lookup included, is the outage stream. */
export const getEvents: RouteHandler<TilecastContext> = (context, request) =>
  streamOrOutage(context, request.path, async () => {
    const { account } = await context.credentials.authenticate(request);
    return openEventStream(context, account, request);
  });
