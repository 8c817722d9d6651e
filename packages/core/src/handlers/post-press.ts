import { authenticateDevice } from '../auth/device-authentication.js';
import type { TilecastContext } from '../context.js';
import { readJsonBody } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import type { CoreResult } from '../http/types.js';
import { acceptPress } from '../presses/press-intake.js';
import { isTilecastError } from '../errors.js';
import type { PressObservation } from '../observer.js';

/**
 * `POST /device/presses`. Promise steps, not an async function (see `patchActivity`):
 * every press of every phone comes through here.
 */
export const postPress: RouteHandler<TilecastContext> = (context, request) => {
  const answer = authenticateDevice(context.authenticateDevice, request)
    .then((device) => readJsonBody(request).then((body) => acceptPress(context, device, body)))
    .then((eventId): CoreResult => ({ kind: 'json', status: 202, body: { event_id: eventId } }));
  const { observer } = context;
  if (observer === undefined) return answer;
  // Admissions (accepted, duplicate, limited) are told by the intake; every other refusal here.
  return answer.catch((error: unknown) => {
    if (!(isTilecastError(error) && error.error.kind === 'too_many_presses')) observer.press(isTilecastError(error) ? REFUSED : FAILED);
    throw error;
  });
};

const REFUSED: PressObservation = { outcome: 'refused' };
const FAILED: PressObservation = { outcome: 'failed' };
