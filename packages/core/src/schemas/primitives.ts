/**
 * The small schemas every content schema is built from. They encode the hardening rules
 * once: strict objects (docs/contract/templates.md#widget-unknown-fields), no coercion (docs/contract/limits-and-errors.md#no-coercion),
 * finite numbers (docs/contract/templates.md#widget-finite-numbers), safe integers, RFC 3339 timestamps
 * (docs/contract/templates.md#widget-timestamps), and "an explicit null on an optional field means absent"
 * (docs/contract/templates.md#widget-null-means-absent).
 */
import * as v from 'valibot';
import { MAX_FIELD_ERRORS } from './field-errors.js';
import { MSG } from './messages.js';
import { hasOffset, isDateTime } from './timestamp.js';

/**
 * Sets an own, enumerable, writable property, also for the key `__proto__` (which plain
 * assignment would take as the prototype): for objects built from keys that come from input.
 */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** A JSON object: not an array, not a class instance. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** What `strict(entries)` makes: it checks and infers as `v.strictObject(entries)` (see `strictShape`). */
export type StrictSchema<TEntries extends v.ObjectEntries> = v.LazySchema<v.StrictObjectSchema<TEntries, undefined>>;

/** Each schema made by `strict` → the `v.strictObject` of its entries. */
const shapes = new WeakMap<object, v.StrictObjectSchema<v.ObjectEntries, undefined>>();

/**
 * `v.strictObject` with three fixes, from valibot's public API only:
 * - valibot accepts arrays as objects (`typeof [] === 'object'`); here they are a
 *   `dict_type` error, like any other non-object;
 * - valibot reports only the first unknown key; pydantic reports each one, and so do we,
 *   after the declared fields' errors and up to `MAX_FIELD_ERRORS` (no more can be shown);
 * - the keys are enumerated once. An object of thousands of keys is a dictionary in V8,
 *   and each enumeration of one collects and sorts all its keys (about as costly as
 *   parsing them): enumerating it twice made refusing it cost more than accepting a valid
 *   body of its size (docs/contract/limits-and-errors.md#field-error-cost).
 * A `v.lazy` picks the check for each input: `v.strictObject` itself for a non-object and
 * for a plain object of declared keys only; a plain-object check for arrays and class
 * instances; and for an object with unknown keys, its declared fields (`v.object`, which
 * does not enumerate the input) then one `v.never` per unknown key, in enumeration order.
 * Unknown keys include `__proto__`, `constructor` and `prototype`: only declared keys are
 * copied to the output, so none of them can reach a prototype.
 */
export function strict<const TEntries extends v.ObjectEntries>(entries: TEntries): StrictSchema<TEntries> {
  const shape = v.strictObject(entries);
  const notPlain = v.custom(isPlainObject, MSG.dict);
  const declared = v.object(entries);
  const schema = v.lazy((input: unknown): v.GenericSchema => {
    if (!isPlainObject(input)) return typeof input === 'object' && input !== null ? notPlain : shape;
    let unknown: string[] | undefined;
    for (const key in input) {
      if (Object.hasOwn(entries, key)) continue;
      (unknown ??= []).push(key);
      if (unknown.length === MAX_FIELD_ERRORS) break;
    }
    if (unknown === undefined) return shape;
    return v.intersect([declared, v.object(absentEntries(unknown))]);
  }) as unknown as StrictSchema<TEntries>;
  shapes.set(schema, shape);
  return schema;
}

/**
 * The `v.strictObject` a schema made by `strict` checks as (its `entries`; what the OpenAPI
 * document describes), or `undefined` for any other schema.
 */
export function strictShape(schema: unknown): v.StrictObjectSchema<v.ObjectEntries, undefined> | undefined {
  return typeof schema === 'object' && schema !== null ? shapes.get(schema) : undefined;
}

/**
 * An entry that refuses any value under each of `keys` (`extra_forbidden`). Its object is
 * only ever a refusal, so the value `v.object` copies for `__proto__` (onto that throwaway
 * output's prototype) is never seen.
 */
function absentEntries(keys: readonly string[]): v.ObjectEntries {
  const extra = v.never(MSG.extra);
  const entries: v.ObjectEntries = {};
  for (const key of keys) setOwn(entries, key, extra);
  return entries;
}

/** Optional field whose absence and explicit `null` both mean "unset": echoed as `null`. */
export function orNull<const TSchema extends v.GenericSchema>(schema: TSchema): v.NullishSchema<TSchema, null> {
  return v.nullish(schema, null);
}

/** A number, never a numeric string, never NaN or ±Infinity. */
export function finiteNumber() {
  return v.pipe(v.number(), v.finite());
}

/** 0.0 to 1.0 inclusive: progress values. */
export function fraction() {
  return v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(1));
}

export function atLeast(minimum: number) {
  return v.pipe(v.number(), v.finite(), v.minValue(minimum));
}

export function between(minimum: number, maximum: number) {
  return v.pipe(v.number(), v.finite(), v.minValue(minimum), v.maxValue(maximum));
}

export function greaterThan(bound: number) {
  return v.pipe(v.number(), v.finite(), v.gtValue(bound));
}

/**
 * A safe integer. `60.0` is the number 60 once parsed, so it is accepted; `"60"`, `1.5`,
 * `-0` and integers beyond 2^53 are refused (each as `int_type`).
 */
export function integer() {
  return v.pipe(
    v.number(MSG.int),
    v.safeInteger(MSG.int),
    v.check((value: number) => !Object.is(value, -0), MSG.int),
  );
}

/** A string of at most `maximum` characters (UTF-16 units, docs/contract/limits-and-errors.md#limit-characters). */
export function text(maximum: number) {
  return v.pipe(v.string(), v.maxLength(maximum));
}

/** A string of `minimum` to `maximum` characters. */
export function textBetween(minimum: number, maximum: number) {
  return v.pipe(v.string(), v.minLength(minimum), v.maxLength(maximum));
}

/** RFC 3339 date-time with an offset (`Z` or `±hh:mm`), kept as sent. */
export function timestamp() {
  return v.pipe(v.string(), v.check(isDateTime, MSG.datetime), v.check(hasOffset, MSG.timezone), v.metadata({ format: 'date-time' }));
}

/** `tap_url`: any absolute URI (custom app schemes included), 1 to 256 characters. */
export function uri() {
  return v.pipe(v.string(), v.minLength(1), v.maxLength(256), v.url());
}

/** An absolute `https://` URL of at most 256 characters. */
export function httpsUrl() {
  return v.pipe(v.string(), v.minLength(1), v.maxLength(256), v.url(), v.startsWith('https://', MSG.httpsScheme));
}

/** Path items for issues raised by list-level rules, pointing at `input[key]`. */
export function objectItem(input: object, key: string): v.IssuePathItem {
  const record = input as Record<string, unknown>;
  return { type: 'object', origin: 'value', input: record, key, value: record[key] };
}

export function arrayItem(input: unknown[], key: number): v.IssuePathItem {
  return { type: 'array', origin: 'value', input, key, value: input[key] };
}
