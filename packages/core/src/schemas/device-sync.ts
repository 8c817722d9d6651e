/** The bodies of the device sync API (docs/contract/device-api.md#device-sync-bodies). */
import * as v from 'valibot';
import { strict } from './primitives.js';

/** An APNs token: 16 to 512 hexadecimal characters, any case (stored lower case). */
export const APNS_TOKEN_PATTERN = /^[0-9A-Fa-f]+$/;

export const apnsToken = v.pipe(v.string(), v.minLength(16), v.maxLength(512), v.regex(APNS_TOKEN_PATTERN));

/**
 * `PUT /device/push`: `environment` required; a token omitted is kept as it is, `null`
 * removes it (so `null` is not "absent" here, unlike the content schemas' `orNull`).
 */
export const pushRegistration = strict({
  environment: v.picklist(['production', 'sandbox']),
  push_to_start: v.optional(v.nullable(apnsToken)),
  widgets: v.optional(v.nullable(apnsToken)),
});

/** `PUT /device/activities/{owner}/{slug}/push`. */
export const activityPushToken = strict({
  token: apnsToken,
});

export type PushRegistration = v.InferOutput<typeof pushRegistration>;
export type ActivityPushToken = v.InferOutput<typeof activityPushToken>;
