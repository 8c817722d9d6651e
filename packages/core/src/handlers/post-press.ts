import { authenticateDevice } from '../auth/device-authentication.js';
import type { TilecastContext } from '../context.js';
import { readJsonBody } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import type { CoreResult } from '../http/types.js';
import { acceptPress } from '../presses/press-intake.js';

/**
 * `POST /device/presses`. Promise steps, not an async function (see `patchActivity`):
 * every press of every phone comes through here.
 */
export const postPress: RouteHandler<TilecastContext> = (context, request) =>
  authenticateDevice(context.authenticateDevice, request)
    .then((device) => readJsonBody(request).then((body) => acceptPress(context, device, body)))
    .then((eventId): CoreResult => ({ kind: 'json', status: 202, body: { event_id: eventId } }));
