import * as v from 'valibot';
import type { FieldError } from '../errors.js';
import { toFieldErrors } from './field-errors.js';

export type ValidationResult<TOutput> = { success: true; output: TOutput } | { success: false; errors: FieldError[] };

/** One object for every call: valibot only reads it. */
const FIELD_BY_FIELD: v.Config<v.BaseIssue<unknown>> = Object.freeze({ abortEarly: false, abortPipeEarly: true });

/**
 * Validates `input` and returns the output (defaults applied, every optional field
 * present) or every field error, each `loc` starting with `locPrefix`.
 * `abortEarly: false` collects the errors of all fields; `abortPipeEarly: true` stops at
 * the first failing rule of a field, so each field reports one error, as pydantic does.
 */
export function validate<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
  locPrefix: FieldError['loc'] = [],
): ValidationResult<v.InferOutput<TSchema>> {
  const result = v.safeParse(schema, input, FIELD_BY_FIELD);
  if (result.success) return { success: true, output: result.output };
  return { success: false, errors: toFieldErrors(result.issues, locPrefix) };
}
