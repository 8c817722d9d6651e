/** The bodies of the device sync API (docs/contract/device-api.md#device-sync-bodies). */
import * as v from 'valibot';
import { strict } from './primitives.js';

/** An APNs token: 16 to 512 hexadecimal characters, any case (stored lower case). */
export const APNS_TOKEN_PATTERN = /^[0-9A-Fa-f]+$/;

export const apnsToken = v.pipe(v.string(), v.minLength(16), v.maxLength(512), v.regex(APNS_TOKEN_PATTERN));

/**
 * `PUT /device/push`: `environment` required; a token omitted is kept as it is, `null`
 * removes it (so `null` is not "absent" here, unlike the content schemas' `orNull`).
 * `channels` (docs/contract/broadcast-channels.md#broadcast-device-flag): the app follows
 * broadcast channels; omitted, the stored flag is kept. A boolean only: no coercion.
 */
export const pushRegistration = strict({
  environment: v.picklist(['production', 'sandbox']),
  push_to_start: v.optional(v.nullable(apnsToken)),
  widgets: v.optional(v.nullable(apnsToken)),
  channels: v.optional(v.boolean()),
});

/** `PUT /device/activities/{owner}/{slug}/push`. */
export const activityPushToken = strict({
  token: apnsToken,
});

/**
 * An FCM registration token (docs/contract/device-api.md#device-fcm-register): 1 to 4096
 * characters of `A-Z a-z 0-9 : _ -`, stored exactly as given (FCM tokens are case-sensitive).
 */
export const FCM_TOKEN_PATTERN = /^[A-Za-z0-9:_-]+$/;

export const fcmToken = v.pipe(v.string(), v.minLength(1), v.maxLength(4096), v.regex(FCM_TOKEN_PATTERN));

/** `PUT /device/fcm`. */
export const fcmRegistration = strict({
  token: fcmToken,
});

export type PushRegistration = v.InferOutput<typeof pushRegistration>;
export type ActivityPushToken = v.InferOutput<typeof activityPushToken>;
export type FcmRegistration = v.InferOutput<typeof fcmRegistration>;
