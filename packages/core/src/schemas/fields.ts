/**
 * Field rules shared by several resources (widget templates, the webhook map), kept out of
 * `widgets/` so that a resource other than a widget does not depend on a widget template.
 */
import * as v from 'valibot';

/** An action id: a switchboard tile's `id`; also the pattern of webhook map keys (besides `*`). */
export const ACTION_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * An optional field with a default: "an explicit null on an optional field means absent",
 * so `null` gets the default too.
 */
export function withDefault<const TSchema extends v.GenericSchema, const TDefault extends v.InferOutput<TSchema>>(
  schema: TSchema,
  value: TDefault,
): v.NullishSchema<TSchema, TDefault> {
  return v.nullish(schema, value);
}
