import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { pipe } from '../../src/schemas/pipe.js';

/** Pairs of the same pipe: valibot's runner and ours. */
const pairs = [
  ['bounded string', (p: typeof v.pipe) => p(v.string(), v.minLength(2), v.maxLength(4))],
  ['number with checks and metadata', (p: typeof v.pipe) => p(v.number(), v.description('a number'), v.integer(), v.minValue(1), v.maxValue(9))],
  ['transformation mid-pipe', (p: typeof v.pipe) => p(v.string(), v.maxLength(3), v.transform((s: string) => s.length), v.number(), v.minValue(2))],
  ['nested pipes', (p: typeof v.pipe) => p(p(v.string(), v.minLength(1)), v.maxLength(2), v.check((s: string) => s !== 'no', 'not no'))],
  ['object first', (p: typeof v.pipe) => p(v.object({ a: p(v.number(), v.minValue(0)) }), v.check((o: { a: number }) => o.a !== 3, 'not 3'))],
] as const;

const inputs: unknown[] = [0.5, -1.5, 10.5, '', 'a', 'ab', 'abcd', 'abcde', 'no', 0, 1, 1.5, 5, 10, -1, null, undefined, { a: -1 }, { a: 3 }, { a: 1 }, { a: 'x' }, []];
const configs = [{}, { abortEarly: true }, { abortPipeEarly: true }, { abortEarly: false, abortPipeEarly: true }];

/** The whole result as text; functions (a check's requirement) by their source, as the two pipes have their own. */
function comparable(result: unknown): string {
  return JSON.stringify(result, (_key, value: unknown) => (typeof value === 'function' ? `fn ${String(value)}` : value === undefined ? 'undefined' : value));
}

describe('pipe', () => {
  it.each(pairs)('gives exactly what v.pipe gives: %s', (_name, make) => {
    const theirs = make(v.pipe);
    const ours = make(pipe);
    for (const input of inputs) {
      for (const config of configs) {
        expect(comparable(v.safeParse(ours, input, config)), JSON.stringify({ input, config })).toBe(comparable(v.safeParse(theirs, input, config)));
      }
    }
  });

  it('keeps the pipe for introspection (the OpenAPI conversion reads it)', () => {
    const schema = pipe(v.string(), v.maxLength(4));
    expect(schema.type).toBe('string');
    expect(schema.pipe.map((item) => item.type)).toEqual(['string', 'max_length']);
    expect(schema['~standard'].validate('abcde')).toMatchObject({ issues: [{ type: 'max_length' }] });
  });
});
