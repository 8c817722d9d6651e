/**
 * "At least one of these fields": a cross-field rule that JSON Schema can say (`anyOf` of
 * one `required` per field), so the check and its description in `/openapi.json` are made
 * here from the same list.
 */
import * as v from 'valibot';
import { valueError } from './messages.js';

/** How a field counts as given: `set`, present and not null; `listed`, a list of at least one item. */
export type Given = 'set' | 'listed';

/**
 * `schema`, refused (`value_error`, `message`) unless one of `fields` is given, with the
 * rule as `anyOf` in its JSON Schema.
 */
export function atLeastOneOf<const TSchema extends v.GenericSchema>(schema: TSchema, fields: Readonly<Record<string, Given>>, message: string) {
  const rules = Object.entries(fields);
  const given = (content: v.InferOutput<TSchema>) => rules.some(([key, how]) => isGiven((content as Record<string, unknown>)[key], how));
  const anyOf = rules.map(([key, how]) => ({
    required: [key],
    properties: { [key]: how === 'listed' ? { type: 'array', minItems: 1 } : { not: { type: 'null' } } },
  }));
  return v.pipe(schema, v.check<v.InferOutput<TSchema>, string>(given, valueError(message)), v.metadata({ anyOf }));
}

function isGiven(value: unknown, how: Given): boolean {
  return how === 'listed' ? Array.isArray(value) && value.length > 0 : value !== null && value !== undefined;
}
