import type * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { readJsonBodySized } from '../../src/http/body.js';
import { convertComponents } from '../../src/openapi/convert.js';
import { NUMBER_FREE_WIDGET_TEMPLATES } from '../../src/publishing/widgets.js';
import { widgetContentSchemas, widgetTemplateNames } from '../../src/schemas/index.js';
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

describe('the templates whose content holds no number', () => {
  // What a body may hold for a template and still pass its schema, as JSON Schema.
  const { schemas, ref } = convertComponents(widgetTemplateNames.map((name) => ({ name, input: widgetContentSchemas[name] as v.GenericSchema })));

  /** Why a value holding a number could pass `schema`, or null when none can: a number type, or a place open to any value. */
  function numberAllowed(schema: unknown, seen = new Set<unknown>()): string | null {
    if (schema === true || (typeof schema === 'object' && schema !== null && Object.keys(schema).length === 0)) return 'a place open to any value';
    if (typeof schema !== 'object' || schema === null || seen.has(schema)) return null;
    seen.add(schema);
    const node = schema as Record<string, unknown>;
    const types = [node.type].flat();
    if (types.includes('number') || types.includes('integer')) return 'a number type';
    if ([node.const, ...((node.enum as unknown[]) ?? [])].some((value) => typeof value === 'number')) return 'a number constant';
    if (types.includes('object') && node.additionalProperties !== false) return 'an object open to other keys';
    if (types.includes('array') && node.items === undefined) return 'an array of anything';
    if (typeof node.$ref === 'string') return numberAllowed(schemas[node.$ref.split('/').pop()!], seen);
    for (const value of Object.values(node)) {
      const inner = Array.isArray(value)
        ? value.map((item) => numberAllowed(item, seen)).find((why) => why !== null)
        : typeof value === 'object'
          ? numberAllowed(value, seen)
          : null;
      if (inner) return inner;
    }
    return null;
  }

  it('are exactly those whose schema accepts no number anywhere (and no key it does not declare)', () => {
    const numberFree = widgetTemplateNames.filter((name) => numberAllowed(schemas[ref(name, 'input').$ref.split('/').pop()!]) === null);
    expect(numberFree.length).toBeGreaterThan(0);
    expect(new Set(numberFree)).toEqual(NUMBER_FREE_WIDGET_TEMPLATES);
  });

  it('sees a number, an open object and an open value where a schema has one', () => {
    expect(numberAllowed({ type: 'object', properties: { a: { type: 'integer' } }, additionalProperties: false })).toBe('a number type');
    expect(numberAllowed({ type: 'object', properties: { a: { type: 'string' } } })).toBe('an object open to other keys');
    expect(numberAllowed({ type: 'object', properties: { a: {} }, additionalProperties: false })).toBe('a place open to any value');
    expect(numberAllowed({ anyOf: [{ type: 'string' }, { const: 3 }] })).toBe('a number constant');
    expect(numberAllowed({ type: 'object', properties: { a: { type: ['string', 'null'] } }, additionalProperties: false })).toBeNull();
  });
});
