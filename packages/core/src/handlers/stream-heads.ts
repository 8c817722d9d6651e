/**
 * `HEAD /events` and `HEAD /device/stream`: the head a `GET` would have, without opening a
 * stream. They check what the `GET` checks before its stream (authentication, the filters)
 * and answer its status and headers; they take no stream slot and hold no connection, so a
 * `HEAD` never stands in the way of a `GET` (a safe method has no effect). Whether a slot
 * would be free is not asked: that is the next `GET`'s to find out, at its own moment.
 */
import { authenticateDevice } from '../auth/device-authentication.js';
import type { TilecastContext } from '../context.js';
import { parseEventFilters } from '../events/filters.js';
import type { CoreResult } from '../http/types.js';
import type { RouteHandler } from '../http/router.js';
import { streamOrOutage } from '../sse/outage.js';

/** An event stream never run: the core answers a HEAD with its head alone (`headOnly`). */
const STREAM_HEAD: CoreResult = { kind: 'sse', run: (sink) => Promise.resolve(sink.end()) };

export const headEvents: RouteHandler<TilecastContext> = (context, request) =>
  streamOrOutage(context, request.path, async () => {
    await context.credentials.authenticate(request);
    parseEventFilters(request.query);
    return STREAM_HEAD;
  });

export const headDeviceStream: RouteHandler<TilecastContext> = (context, request) =>
  streamOrOutage(context, request.path, async () => {
    await authenticateDevice(context.authenticateDevice, request);
    return STREAM_HEAD;
  });
