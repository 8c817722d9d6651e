/** The body of `POST /device/presses` (docs/contract/device-api.md#press-report). */
import * as v from 'valibot';
import { strict, textBetween } from './primitives.js';

/**
 * `request_id`: 1 to 128 of `A-Z a-z 0-9 _ -` (a UUID or ULID fits). It can be filled into
 * the owner's webhook URL unencoded, so no character that could change a URL's path,
 * query, host or user part (`/ . ? & # @ : %` or a space) is allowed.
 */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]+$/;

export const pressReport = strict({
  owner: textBetween(1, 256),
  slug: textBetween(1, 256),
  request_id: v.pipe(v.string(), v.minLength(1), v.maxLength(128), v.regex(REQUEST_ID_PATTERN)),
  action: textBetween(1, 32),
  value: v.optional(v.boolean()),
});

export type PressReport = v.InferOutput<typeof pressReport>;
