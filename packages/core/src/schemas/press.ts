/** The body of `POST /device/presses` (reference-deployment §5). */
import * as v from 'valibot';
import { strict, textBetween } from './primitives.js';

export const pressReport = strict({
  owner: textBetween(1, 256),
  slug: textBetween(1, 256),
  request_id: textBetween(1, 128),
  action: textBetween(1, 32),
  value: v.optional(v.boolean()),
});

export type PressReport = v.InferOutput<typeof pressReport>;
