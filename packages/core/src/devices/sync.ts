import type { TilecastContext } from '../context.js';
import { DEVICE_UNAUTHORIZED, fail } from '../errors.js';
import { activityPushToken, fcmRegistration, pushRegistration, validate } from '../schemas/index.js';
import type { ActivityRecord, DeviceIdentity, DeviceRecord } from '../storage/records.js';
import { type DeviceActivity, type DeviceWidget, deviceActivity, deviceWidget } from '../transport/pushes.js';

/**
 * The device sync API (docs/contract/device-api.md#device-sync-api): the APNs and FCM tokens a phone registers, and
 * what a widget extension or a relaunched app reads. Every write goes to the store after
 * validation only: APNs tokens are hex and stored lower case, FCM tokens ASCII kept as
 * given (so both are always holdable).
 */

/** `PUT /device/push`. */
export async function registerPush(context: TilecastContext, device: DeviceRecord, body: unknown): Promise<void> {
  const parsed = validate(pushRegistration, body, ['body']);
  if (!parsed.success) fail({ kind: 'validation', errors: parsed.errors });
  const { environment, push_to_start, widgets, channels } = parsed.output;
  const written = await context.storage.setApnsRegistration(
    device.id,
    { environment, pushToStart: lowerCase(push_to_start), widgets: lowerCase(widgets), channels },
    { ifDevice: identityOf(device) },
  );
  // The device was removed, or its token rotated, since it authenticated: its credentials
  // no longer hold, and the tokens of the app that sent them must not stay behind.
  if (!written) fail(DEVICE_UNAUTHORIZED);
}

/** `DELETE /device/push`: every APNs token of the device, update tokens included. */
export async function removePush(context: TilecastContext, device: DeviceRecord): Promise<void> {
  const removed = await context.storage.removeApnsRegistration(device.id, { ifDevice: identityOf(device) });
  // The device was removed, or its token rotated, since it authenticated: a stale app's
  // request must not remove what the new app registered.
  if (!removed) fail(DEVICE_UNAUTHORIZED);
}

/** `PUT /device/fcm` (docs/contract/device-api.md#device-fcm-register): the token is stored as given, case and all. */
export async function registerFcm(context: TilecastContext, device: DeviceRecord, body: unknown): Promise<void> {
  const parsed = validate(fcmRegistration, body, ['body']);
  if (!parsed.success) fail({ kind: 'validation', errors: parsed.errors });
  const written = await context.storage.setFcmToken(device.id, parsed.output.token, { ifDevice: identityOf(device) });
  // As for `PUT /device/push`: credentials rotated or removed since the request authenticated.
  if (!written) fail(DEVICE_UNAUTHORIZED);
}

/** `DELETE /device/fcm` (docs/contract/device-api.md#device-fcm-remove): `204` also when there was none. */
export async function removeFcm(context: TilecastContext, device: DeviceRecord): Promise<void> {
  const removed = await context.storage.removeFcmToken(device.id, { ifDevice: identityOf(device) });
  // As for `DELETE /device/push`: a stale app's request must not remove the new app's token.
  if (!removed) fail(DEVICE_UNAUTHORIZED);
}

/** `PUT /device/activities/{owner}/{slug}/push`. */
export async function registerActivityToken(
  context: TilecastContext,
  device: DeviceRecord,
  activity: { owner: string; slug: string },
  body: unknown,
): Promise<void> {
  const parsed = validate(activityPushToken, body, ['body']);
  if (!parsed.success) fail({ kind: 'validation', errors: parsed.errors });
  // Activities are shown on the devices of their account only; the store checks it in the
  // write, with the device's credentials as they were when the request authenticated.
  const { storage } = context;
  const token = parsed.output.token.toLowerCase();
  const written =
    activity.owner === device.accountId &&
    (await storage.setActivityPushToken(device.id, activity.owner, activity.slug, token, { ifDevice: identityOf(device) }));
  if (written) return;
  if (!(await stillHolds(context, device))) fail(DEVICE_UNAUTHORIZED);
  fail({ kind: 'activity_not_found' });
}

/** The device as it authenticated: a write conditioned on it fails once its token is rotated or it is removed. */
const identityOf = (device: DeviceRecord): DeviceIdentity => ({ accountId: device.accountId, tokenHash: device.tokenHash });

/** Whether the device still exists with the account and token hash it authenticated with. */
async function stillHolds(context: TilecastContext, device: DeviceRecord): Promise<boolean> {
  const current = await context.storage.getDevice(device.id);
  return current !== null && current.accountId === device.accountId && current.tokenHash === device.tokenHash;
}

/** `DELETE /device/activities/{owner}/{slug}/push`: `204` also when there was none. */
export function forgetActivityToken(context: TilecastContext, device: DeviceRecord, activity: { owner: string; slug: string }): Promise<void> {
  return context.storage.forgetActivityPushToken(device.id, activity.owner, activity.slug);
}

/** `GET /device/widgets`: the account's widgets, then those shared with the device. */
export async function listDeviceWidgets(context: TilecastContext, device: DeviceRecord): Promise<{ widgets: DeviceWidget[] }> {
  const [own, shared] = await Promise.all([context.storage.listWidgets(device.accountId), context.storage.listWidgetsSharedWith(device.id)]);
  return { widgets: [...own, ...shared].map(deviceWidget) };
}

/** `GET /device/widgets/{owner}/{slug}`: `404 Widget not found` unless shown on this device. */
export async function getDeviceWidget(context: TilecastContext, device: DeviceRecord, owner: string, slug: string): Promise<DeviceWidget> {
  const { storage } = context;
  const [widget, shares] = await Promise.all([storage.getWidget(owner, slug), owner === device.accountId ? null : storage.listWidgetShares(owner, slug)]);
  if (widget === null || (shares !== null && !shares.includes(device.id))) fail({ kind: 'widget_not_found' });
  return deviceWidget(widget);
}

/**
 * An item of `GET /device/activities`: the activity and the broadcast channel a relaunched
 * app subscribes to (docs/contract/broadcast-channels.md#broadcast-channel-id-sync).
 */
export type ListedDeviceActivity = DeviceActivity & { channel_id: string | null };

/**
 * `GET /device/activities`: the live activities of the device's account. `channel_id` is
 * the activity's channel in the environment the device registered for APNs, when its
 * updates are broadcast; null for per-token delivery, and for a device without an APNs
 * registration (docs/contract/broadcast-channels.md#broadcast-channel-id-sync).
 */
export async function listDeviceActivities(context: TilecastContext, device: DeviceRecord): Promise<{ activities: ListedDeviceActivity[] }> {
  const live = (await context.storage.listActivities(device.accountId)).filter((activity) => activity.live);
  const broadcasting = (activity: ActivityRecord) =>
    activity.delivery === 'broadcast' && (activity.channels.production !== null || activity.channels.sandbox !== null);
  // The registration is read only when some channel could be shown: not for token delivery.
  const environment = live.some(broadcasting) ? ((await context.storage.getApnsRegistration(device.id))?.environment ?? null) : null;
  return {
    activities: live.map((activity) => ({
      ...deviceActivity(activity),
      channel_id: environment !== null && activity.delivery === 'broadcast' ? activity.channels[environment] : null,
    })),
  };
}

const lowerCase = (token: string | null | undefined): string | null | undefined => (typeof token === 'string' ? token.toLowerCase() : token);
