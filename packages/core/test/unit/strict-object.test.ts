import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { MAX_FIELD_ERRORS, toFieldErrors } from '../../src/schemas/field-errors.js';
import { strict, strictShape } from '../../src/schemas/primitives.js';

/** Entries of strict objects, made anew for each side (a default or fallback may be a function). */
const entrySets = [
  ['required keys', () => ({ a: v.string(), b: v.number() })],
  ['optional, nullish and exact optional', () => ({ a: v.optional(v.string()), b: v.nullish(v.number()), c: v.exactOptional(v.string()) })],
  ['defaults, as values and functions', () => ({ a: v.optional(v.string(), 'x'), b: v.optional(v.number(), () => 5), c: v.nullish(v.string(), 'n'), d: v.exactOptional(v.number(), 7) })],
  ['a fallback', () => ({ a: v.fallback(v.string(), 'fb'), b: v.number() })],
  ['nested objects and arrays', () => ({ o: strict({ x: v.number() }), list: v.array(strict({ id: v.string() })) })],
  ['piped entries', () => ({ n: v.pipe(v.number(), v.minValue(1)), s: v.pipe(v.string(), v.maxLength(2)) })],
  ['integer-like keys', () => ({ b: v.string(), 2: v.number(), 1: v.optional(v.number()) })],
] as const;

/** Plain objects of declared keys only (for some entry set), and values that are no object. */
const sameAsValibot: unknown[] = [
  {}, { a: 's' }, { a: 1 }, { a: 's', b: 2 }, { a: undefined }, { b: null }, { c: 'c', d: 1 }, { n: 0, s: 'abc' }, { n: 2, s: 'ab' },
  { 1: 1, 2: 2, b: 'b' }, { 2: 'x' }, { o: { x: 1 }, list: [] }, { o: { x: 'no' }, list: [{ id: 'a' }, { id: 1 }] },
  Object.assign(Object.create(null) as object, { a: 's', b: 1 }), null, undefined, 5, 'text', true,
];
/** Objects with unknown keys (some nested), arrays and class instances: where `strict` improves on valibot. */
const withUnknownKeys: unknown[] = [
  { a: 's', b: 2, extra: 1 }, { extra: 1, more: 2, a: 's' }, { z: 1, 10: 0, 3: 0, a: 1 }, JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 1, "prototype": 2, "a": "s", "b": 1}'),
  { o: { x: 'no', y: 1 }, list: [{ id: 'a' }, { id: 1, z: 0 }], extra: 1 },
];
const configs = [{}, { abortEarly: true }, { abortPipeEarly: true }, { abortEarly: false, abortPipeEarly: true }];

/** The whole result as text; functions by their source, as the two sides have their own. */
function comparable(result: unknown): string {
  return JSON.stringify(result, (_key, value: unknown) => (typeof value === 'function' ? `fn ${String(value)}` : value === undefined ? 'undefined' : value));
}

function errorsOf(schema: v.GenericSchema, input: unknown, config: v.Config<v.BaseIssue<unknown>>) {
  const result = v.safeParse(schema, input, config);
  return result.success ? [] : toFieldErrors(result.issues);
}

/** The unknown keys of `input` (nested strict objects included), in valibot's enumeration order. */
function withoutUnknownKeys(value: unknown, entries: v.ObjectEntries): { declared: unknown; unknown: string[] } {
  const input = value as Record<string, unknown>;
  const declared: Record<string, unknown> = {};
  const unknown: string[] = [];
  for (const key in input) {
    if (Object.hasOwn(entries, key)) declared[key] = input[key];
    else unknown.push(key);
  }
  return { declared, unknown };
}

describe('strict', () => {
  it.each(entrySets)('gives exactly what valibot’s strictObject gives for non-objects and objects of declared keys: %s', (_name, entries) => {
    const ours = strict(entries());
    const theirs = v.strictObject(entries());
    for (const input of sameAsValibot) {
      if (typeof input === 'object' && input !== null && Object.keys(input).some((key) => !(key in theirs.entries))) continue;
      for (const config of configs) {
        expect(comparable(v.safeParse(ours, input, config)), JSON.stringify({ input, config })).toBe(comparable(v.safeParse(theirs, input, config)));
      }
    }
  });

  it.each(entrySets)('reports every unknown key after the declared fields’ errors: %s', (_name, entries) => {
    const ours = strict(entries());
    const theirs = v.strictObject(entries());
    for (const input of withUnknownKeys) {
      const { declared, unknown } = withoutUnknownKeys(input, theirs.entries);
      for (const config of configs) {
        const context = JSON.stringify({ input, config });
        const declaredErrors = errorsOf(ours, declared, config);
        const extra = unknown.map((key) => ({ loc: [key], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' }));
        const expected = config.abortEarly ? (declaredErrors.length > 0 ? declaredErrors : extra.slice(0, 1)) : [...declaredErrors, ...extra];
        expect(errorsOf(ours, input, config), context).toEqual(expected);
        expect(v.safeParse(ours, input, config).success, context).toBe(false);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses arrays and class instances as dict_type, where valibot’s strictObject takes them for objects', () => {
    const schema = strict({ a: v.optional(v.string()) });
    for (const input of [[], new Date(0), new Map(), Object.create({ a: 'inherited' }) as object]) {
      expect(v.safeParse(strictShape(schema)!, input).success).toBe(true);
      expect(errorsOf(schema, input, {})).toEqual([{ loc: [], msg: 'Input should be a valid dictionary', type: 'dict_type' }]);
    }
  });

  it(`stops collecting unknown keys at ${MAX_FIELD_ERRORS}`, () => {
    const schema = strict({ a: v.string() });
    const input = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`k${i}`, i]));
    const result = v.safeParse(schema, input, { abortEarly: false, abortPipeEarly: true });
    expect(result.issues).toHaveLength(1 + MAX_FIELD_ERRORS);
    expect(toFieldErrors(result.issues!).map((error) => error.loc[0])).toEqual(['a', ...Array.from({ length: MAX_FIELD_ERRORS - 1 }, (_, i) => `k${i}`)]);
  });

  it('builds the output from the declared keys only, in their order, with defaults', () => {
    const schema = strict({ b: v.number(), a: v.optional(v.string(), 'd') });
    const result = v.safeParse(schema, { a: 'x', b: 1 });
    expect(result.success && Object.keys(result.output)).toEqual(['b', 'a']);
    expect(v.safeParse(schema, { b: 1 })).toMatchObject({ success: true, output: { b: 1, a: 'd' } });
  });

  it('is described by the strictObject of its entries', () => {
    const entries = { a: v.string() };
    const shape = strictShape(strict(entries));
    expect(shape?.type).toBe('strict_object');
    expect(shape?.entries).toBe(entries);
    expect(strictShape(v.strictObject(entries))).toBeUndefined();
  });
});
