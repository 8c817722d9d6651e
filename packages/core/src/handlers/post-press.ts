import { authenticateDevice } from '../auth/device-authentication.js';
import type { TilecastContext } from '../context.js';
import { readJsonBody } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import { acceptPress } from '../presses/press-intake.js';

/** `POST /device/presses` */
export const postPress: RouteHandler<TilecastContext> = async (context, request) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  const body = await readJsonBody(request);
  const eventId = await acceptPress(context, device, body);
  return { kind: 'json', status: 202, body: { event_id: eventId } };
};
