import { authenticateDevice } from '../auth/device-authentication.js';
import type { TilecastContext } from '../context.js';
import { readJsonBody } from '../http/body.js';
import type { RouteHandler } from '../http/router.js';
import type { CoreResult } from '../http/types.js';
import {
  forgetActivityToken,
  getDeviceWidget,
  listDeviceActivities,
  listDeviceWidgets,
  registerActivityToken,
  registerFcm,
  registerPush,
  removeFcm,
  removePush,
} from '../devices/sync.js';

const NO_CONTENT: CoreResult = { kind: 'empty', status: 204 };
const noContent = (): CoreResult => NO_CONTENT;
const json = (body: unknown): CoreResult => ({ kind: 'json', status: 200, body });

/** `PUT /device/push` */
export const putDevicePush: RouteHandler<TilecastContext> = async (context, request) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return registerPush(context, device, await readJsonBody(request)).then(noContent);
};

/** `DELETE /device/push` */
export const deleteDevicePush: RouteHandler<TilecastContext> = async (context, request) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return removePush(context, device).then(noContent);
};

/** `PUT /device/fcm` */
export const putDeviceFcm: RouteHandler<TilecastContext> = async (context, request) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return registerFcm(context, device, await readJsonBody(request)).then(noContent);
};

/** `DELETE /device/fcm` */
export const deleteDeviceFcm: RouteHandler<TilecastContext> = async (context, request) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return removeFcm(context, device).then(noContent);
};

/** `PUT /device/activities/{owner}/{slug}/push` */
export const putActivityPush: RouteHandler<TilecastContext> = async (context, request, params) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  const body = await readJsonBody(request);
  return registerActivityToken(context, device, { owner: params.owner!, slug: params.slug! }, body).then(noContent);
};

/** `DELETE /device/activities/{owner}/{slug}/push` */
export const deleteActivityPush: RouteHandler<TilecastContext> = async (context, request, params) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return forgetActivityToken(context, device, { owner: params.owner!, slug: params.slug! }).then(noContent);
};

/** `GET /device/widgets` */
export const getDeviceWidgets: RouteHandler<TilecastContext> = async (context, request) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return json(await listDeviceWidgets(context, device));
};

/** `GET /device/widgets/{owner}/{slug}` */
export const getOneDeviceWidget: RouteHandler<TilecastContext> = async (context, request, params) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return json(await getDeviceWidget(context, device, params.owner!, params.slug!));
};

/** `GET /device/activities` */
export const getDeviceActivities: RouteHandler<TilecastContext> = async (context, request) => {
  const device = await authenticateDevice(context.authenticateDevice, request);
  return json(await listDeviceActivities(context, device));
};
