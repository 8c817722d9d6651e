import { authenticateDevice } from '../auth/device-authentication.js';
import type { TilecastContext } from '../context.js';
import { openDeviceStream } from '../devices/device-stream.js';
import type { RouteHandler } from '../http/router.js';
import { streamOrOutage } from '../sse/outage.js';

/** `GET /device/stream`; like `GET /events`, a store outage while authenticating or taking the slot is the outage stream. */
export const getDeviceStream: RouteHandler<TilecastContext> = (context, request) =>
  streamOrOutage(context, request.path, async () => {
    const device = await authenticateDevice(context.authenticateDevice, request);
    return openDeviceStream(context, device, request);
  });
