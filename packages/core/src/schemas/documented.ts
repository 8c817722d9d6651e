/**
 * Schemas whose checking is built from several valibot pieces (a `v.lazy`, a raw
 * transformation) that @valibot/to-json-schema cannot describe, with the shape they stand
 * for. The OpenAPI generator asks `documentedAs()` and writes `shape` with `value` as its
 * `items` (a list) or `additionalProperties` (a record).
 */
import type * as v from 'valibot';

export interface Documented {
  /** The schema's JSON Schema without its values: e.g. `v.pipe(v.array(v.unknown()), v.maxLength(8))`. */
  readonly shape: v.GenericSchema;
  readonly part: 'items' | 'additionalProperties';
  readonly value: v.GenericSchema;
}

const registry = new WeakMap<object, Documented>();

export function documentAs<T extends object>(schema: T, documented: Documented): T {
  registry.set(schema, documented);
  return schema;
}

export function documentedAs(schema: unknown): Documented | undefined {
  return typeof schema === 'object' && schema !== null ? registry.get(schema) : undefined;
}
