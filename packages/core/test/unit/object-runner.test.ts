import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { strictObjectRunner } from '../../src/schemas/object-runner.js';

/** Entries of strict objects, made anew for each side (a default or fallback may be a function). */
const entrySets = [
  ['required keys', () => ({ a: v.string(), b: v.number() })],
  ['optional, nullish and exact optional', () => ({ a: v.optional(v.string()), b: v.nullish(v.number()), c: v.exactOptional(v.string()) })],
  ['defaults, as values and functions', () => ({ a: v.optional(v.string(), 'x'), b: v.optional(v.number(), () => 5), c: v.nullish(v.string(), 'n'), d: v.exactOptional(v.number(), 7) })],
  ['a fallback', () => ({ a: v.fallback(v.string(), 'fb'), b: v.number() })],
  ['nested objects and arrays', () => ({ o: v.strictObject({ x: v.number() }), list: v.array(v.strictObject({ id: v.string() })) })],
  ['piped entries', () => ({ n: v.pipe(v.number(), v.minValue(1)), s: v.pipe(v.string(), v.maxLength(2)) })],
  ['integer-like keys', () => ({ b: v.string(), 2: v.number(), 1: v.optional(v.number()) })],
] as const;

const inputs: unknown[] = [
  {}, { a: 's' }, { a: 1 }, { a: 's', b: 2 }, { a: 's', b: 2, extra: 1 }, { extra: 1, more: 2, a: 's' }, { a: undefined }, { b: null }, { c: 'c', d: 1 },
  null, undefined, 5, 'text', [], [1], { o: { x: 1 }, list: [] }, { o: { x: 'no' }, list: [{ id: 'a' }, { id: 1 }, { id: 'b', z: 0 }] },
  { n: 0, s: 'abc' }, { n: 2, s: 'ab' }, { 1: 1, 2: 2, b: 'b' }, { 2: 'x' }, JSON.parse('{"__proto__": 1, "a": "s", "b": 1}'),
  Object.assign(Object.create(null) as object, { a: 's', b: 1 }),
];
const configs = [{}, { abortEarly: true }, { abortPipeEarly: true }];

/** The whole result as text; functions by their source, as the two sides have their own. */
function comparable(result: unknown): string {
  return JSON.stringify(result, (_key, value: unknown) => (typeof value === 'function' ? `fn ${String(value)}` : value === undefined ? 'undefined' : value));
}

describe('strictObjectRunner', () => {
  it.each(entrySets)('gives exactly what valibot’s strictObject gives: %s', (_name, entries) => {
    const theirs = v.strictObject(entries());
    const ours = v.strictObject(entries());
    Object.assign(ours, { '~run': strictObjectRunner(ours as never) });
    for (const input of inputs) {
      for (const config of configs) {
        expect(comparable(v.safeParse(ours, input, config)), JSON.stringify({ input, config })).toBe(comparable(v.safeParse(theirs, input, config)));
      }
    }
  });

  it('builds the output from the declared keys only, in their order', () => {
    const schema = v.strictObject({ b: v.number(), a: v.optional(v.string(), 'd') });
    Object.assign(schema, { '~run': strictObjectRunner(schema as never) });
    const result = v.safeParse(schema, { a: 'x', b: 1 });
    expect(result.success && Object.keys(result.output)).toEqual(['b', 'a']);
    expect(v.safeParse(schema, { b: 1 })).toMatchObject({ success: true, output: { b: 1, a: 'd' } });
  });
});
