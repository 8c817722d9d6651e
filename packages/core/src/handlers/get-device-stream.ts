import { authenticateDevice } from '../auth/device-authentication.js';
import type { TilecastContext } from '../context.js';
import { openDeviceStream } from '../devices/device-stream.js';
import type { RouteHandler } from '../http/router.js';

/** `GET /device/stream` */
export const getDeviceStream: RouteHandler<TilecastContext> = async (context, request) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return openDeviceStream(context, device);
};
