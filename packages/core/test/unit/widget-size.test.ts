import { describe, expect, it } from 'vitest';
import { readJsonBodySized } from '../../src/http/body.js';
import type { CoreRequest } from '../../src/http/types.js';

/** JSON number literals written with an exponent. */
function* exponentLiterals(): Generator<string> {
  for (const mantissa of ['0', '1', '9', '-1', '-9', '1.5', '12', '-12', '99']) {
    for (const e of ['e', 'E', 'e+', 'e-', 'E-']) for (let exponent = 0; exponent <= 330; exponent++) yield `${mantissa}${e}${exponent}`;
  }
}

/** JSON number literals without an exponent: long integers, fractions, trailing zeros, tiny and huge values. */
function* plainLiterals(): Generator<string> {
  for (let digits = 1; digits <= 40; digits++) {
    yield '9'.repeat(digits);
    yield `1${'0'.repeat(digits)}`;
    yield `-${'7'.repeat(digits)}`;
    yield `0.${'0'.repeat(digits)}1`;
    yield `1.${'0'.repeat(digits)}`;
    yield `3.${'1'.repeat(digits)}`;
  }
  yield '-0';
  yield '0.30000000000000004';
}

const growth = (literal: string) => JSON.stringify(JSON.parse(literal) as number).length / literal.length;

const request = (text: string): CoreRequest => ({
  method: 'PATCH',
  path: '/widget/x',
  query: new URLSearchParams(),
  headers: { 'content-type': 'application/json' },
  body: { kind: 'raw', read: async () => Buffer.from(text) },
});

describe('the serialised-size bound of a request body', () => {
  it('a number written with an exponent grows at most 21/4 when serialised again; any other at most 17/16', () => {
    const finite = (literal: string) => Number.isFinite(JSON.parse(literal)); // infinite ones are refused by every schema
    expect(Math.max(...[...exponentLiterals()].filter(finite).map(growth))).toBe(21 / 4); // `1e20` → 100000000000000000000
    expect(Math.max(...[...plainLiterals()].map(growth))).toBe(17 / 16); // sixteen nines → 1 and sixteen zeros
  });

  it('is 17/16 of the body size without exponent numbers, 21/4 of it with one (or with what looks like one in a string)', async () => {
    for (const plain of ['{"content":{"value":21,"label":"Temperature here"}}', '{"content":{"label":"v1e","model":"2E"}}']) {
      expect((await readJsonBodySized(request(plain))).serializedBound, plain).toBe((Buffer.byteLength(plain) * 17) / 16);
    }
    // Every way of writing an exponent is seen as one.
    const withExponent = [...exponentLiterals()].filter((literal) => Number.isFinite(JSON.parse(literal))).map((literal) => `{"content":{"value":${literal}}}`);
    for (const text of [...withExponent, '{"content":{"label":"v1e5"}}']) {
      expect((await readJsonBodySized(request(text))).serializedBound, text).toBe((Buffer.byteLength(text) * 21) / 4);
    }
  });
});
