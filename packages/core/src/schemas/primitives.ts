/**
 * The small schemas every content schema is built from. They encode the hardening rules
 * of reference-deployment §2/§9 once: strict objects, no coercion, finite numbers, safe
 * integers, RFC 3339 timestamps, and "an explicit null on an optional field means absent".
 */
import * as v from 'valibot';
import { pipe } from './pipe.js';
import { strictObjectRunner, type Run } from './object-runner.js';
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

/**
 * `v.strictObject` with three fixes:
 * - valibot accepts arrays as objects (`typeof [] === 'object'`); here they are a
 *   `dict_type` error, like any other non-object;
 * - valibot reports only the first unknown key; pydantic reports each one, and so do we,
 *   up to `MAX_FIELD_ERRORS` (no more can be shown);
 * - the keys are enumerated once. An object of thousands of keys is a dictionary in V8,
 *   and each enumeration of one collects and sorts all its keys (about as costly as
 *   parsing them): enumerating it twice made refusing it cost more than accepting a valid
 *   body of its size (reference-deployment §9).
 * Unknown keys include `__proto__`, `constructor` and `prototype`: only declared keys are
 * copied to the output, so none of them can reach a prototype. The declared fields are
 * checked by `strictObjectRunner` (valibot's steps, with the entries read once).
 */
export function strict<const TEntries extends v.ObjectEntries>(entries: TEntries): v.StrictObjectSchema<TEntries, undefined> {
  const schema = v.strictObject(entries);
  const run = strictObjectRunner(schema as never);
  const declared = Object.keys(entries);
  const guarded: Run = function (this: unknown, dataset, config) {
    const input = dataset.value;
    // Run the object check on `null` so the type issue has valibot's usual shape.
    if (!isPlainObject(input)) return run.call(this, { value: null }, config);
    let unknown: string[] | undefined;
    for (const key in input) {
      if (Object.hasOwn(entries, key)) continue;
      (unknown ??= []).push(key);
      if (unknown.length === MAX_FIELD_ERRORS || config.abortEarly) break;
    }
    if (unknown === undefined) return run.call(this, dataset, config);
    // The runner sees the declared keys only, so its own key scan is cheap and finds none.
    const result = run.call(this, { value: declaredPart(input, declared) }, config);
    if (!(config.abortEarly && result.issues)) reportUnknownKeys(result, input, unknown, config);
    return result;
  };
  return Object.assign(schema, { '~run': guarded }) as v.StrictObjectSchema<TEntries, undefined>;
}

/** The declared keys `input` has as its own, in a plain object. */
function declaredPart(input: Record<string, unknown>, declared: readonly string[]): Record<string, unknown> {
  const part: Record<string, unknown> = {};
  for (const key of declared) if (Object.hasOwn(input, key)) part[key] = input[key];
  return part;
}

/** One `extra_forbidden` issue per unknown key (valibot's strict-object key issue, as `toFieldErrors` reads it). */
function reportUnknownKeys(dataset: v.OutputDataset<unknown, v.BaseIssue<unknown>>, input: Record<string, unknown>, unknown: readonly string[], config: v.Config<v.BaseIssue<unknown>>): void {
  const issues = (dataset.issues ?? []) as v.BaseIssue<unknown>[];
  for (const key of unknown) {
    const received = JSON.stringify(key);
    issues.push({
      kind: 'schema',
      type: 'strict_object',
      input: key,
      expected: 'never',
      received,
      message: `Invalid key: Expected never but received ${received}`,
      path: [{ type: 'object', origin: 'key', input, key, value: input[key] }],
      lang: config.lang,
      abortEarly: config.abortEarly,
      abortPipeEarly: config.abortPipeEarly,
    } as v.BaseIssue<unknown>);
  }
  (dataset as { issues?: unknown; typed: boolean }).issues = issues;
  (dataset as { typed: boolean }).typed = false;
}

/** Optional field whose absence and explicit `null` both mean "unset": echoed as `null`. */
export function orNull<const TSchema extends v.GenericSchema>(schema: TSchema): v.NullishSchema<TSchema, null> {
  return v.nullish(schema, null);
}

/** A number, never a numeric string, never NaN or ±Infinity. */
export function finiteNumber() {
  return pipe(v.number(), v.finite());
}

/** 0.0 to 1.0 inclusive: progress values. */
export function fraction() {
  return pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(1));
}

export function atLeast(minimum: number) {
  return pipe(v.number(), v.finite(), v.minValue(minimum));
}

export function between(minimum: number, maximum: number) {
  return pipe(v.number(), v.finite(), v.minValue(minimum), v.maxValue(maximum));
}

export function greaterThan(bound: number) {
  return pipe(v.number(), v.finite(), v.gtValue(bound));
}

/**
 * A safe integer. `60.0` is the number 60 once parsed, so it is accepted; `"60"`, `1.5`,
 * `-0` and integers beyond 2^53 are refused (each as `int_type`).
 */
export function integer() {
  return pipe(v.number(MSG.int), v.safeInteger(MSG.int), v.check((value: number) => !Object.is(value, -0), MSG.int));
}

/** A string of at most `maximum` characters (UTF-16 units, as everywhere in the spec). */
export function text(maximum: number) {
  return pipe(v.string(), v.maxLength(maximum));
}

/** A string of `minimum` to `maximum` characters. */
export function textBetween(minimum: number, maximum: number) {
  return pipe(v.string(), v.minLength(minimum), v.maxLength(maximum));
}

/** RFC 3339 date-time with an offset (`Z` or `±hh:mm`), kept as sent. */
export function timestamp() {
  return pipe(
    v.string(),
    v.check(isDateTime, MSG.datetime),
    v.check(hasOffset, MSG.timezone),
    v.metadata({ format: 'date-time' }),
  );
}

/** `tap_url`: any absolute URI (custom app schemes included), 1 to 256 characters. */
export function uri() {
  return pipe(v.string(), v.minLength(1), v.maxLength(256), v.url());
}

/** An absolute `https://` URL of at most 256 characters. */
export function httpsUrl() {
  return pipe(v.string(), v.minLength(1), v.maxLength(256), v.url(), v.startsWith('https://', MSG.httpsScheme));
}

/** Path items for issues raised by list-level rules, pointing at `input[key]`. */
export function objectItem(input: object, key: string): v.IssuePathItem {
  const record = input as Record<string, unknown>;
  return { type: 'object', origin: 'value', input: record, key, value: record[key] };
}

export function arrayItem(input: unknown[], key: number): v.IssuePathItem {
  return { type: 'array', origin: 'value', input, key, value: input[key] };
}
