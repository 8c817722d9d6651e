/** Table-driven checks shared by the schema tests. */
import type * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { FieldError } from '../../src/errors.js';
import { validate } from '../../src/schemas/index.js';

export type Path = (string | number)[];

/** Marks a field to delete in `setAt`. */
export const REMOVE = Symbol('remove');

/** A deep copy of `base` with `value` at `path` (or the field removed). */
export function setAt(base: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(base) as Record<string | number, unknown>;
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (value === REMOVE) delete node[last];
  else node[last] = value;
  return copy;
}

export function outputOf(schema: v.GenericSchema, input: unknown): unknown {
  const result = validate(schema, input, ['body']);
  if (!result.success) throw new Error(`expected success, got ${JSON.stringify(result.errors)}`);
  return result.output;
}

export function errorsOf(schema: v.GenericSchema, input: unknown, prefix: Path = []): FieldError[] {
  const result = validate(schema, input, prefix);
  if (result.success) throw new Error(`expected errors, got output ${JSON.stringify(result.output)}`);
  return result.errors;
}

/** Exactly one error, at `loc`, of `type`. */
export function expectOnlyError(schema: v.GenericSchema, input: unknown, loc: Path, type: string): FieldError {
  const errors = errorsOf(schema, input);
  expect(errors.map((error) => [error.loc, error.type])).toEqual([[loc, type]]);
  return errors[0]!;
}

/** `n` copies of `item`. */
export function times<T>(n: number, item: (index: number) => T): T[] {
  return Array.from({ length: n }, (_, index) => item(index));
}

export interface BoundCase {
  /** Field path inside the schema's input. */
  path: Path;
  /** Values that must be accepted. */
  ok?: unknown[];
  /** Values that must be refused, with the expected error type at `path`. */
  bad?: [value: unknown, type: string][];
  /** Where the error is reported, when not at `path` itself. */
  errorLoc?: Path;
}

export interface SchemaTable {
  /** A minimal valid input. */
  base: unknown;
  /** Paths whose removal is a `missing` error at that path. */
  required: Path[];
  bounds: BoundCase[];
}

const label = (value: unknown): string => {
  if (Object.is(value, -0)) return '-0';
  if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
  if (typeof value === 'string' && value.length > 20) return `a ${value.length}-character string`;
  const json = JSON.stringify(value);
  if (Array.isArray(value) && json.length > 40) return `a list of ${value.length}`;
  return json.length > 40 ? `${json.slice(0, 30)}…` : json;
};

/** Generates the standard tests of one schema from its table. */
export function schemaTable(name: string, schema: v.GenericSchema, table: SchemaTable): void {
  describe(name, () => {
    it('accepts the minimal input', () => {
      outputOf(schema, table.base);
    });

    it.each(table.required.map((path) => [path.join('.'), path] as const))('requires %s', (_, path) => {
      expectOnlyError(schema, setAt(table.base, path, REMOVE), path, 'missing');
    });

    it('refuses unknown keys, __proto__, constructor and prototype (each reported)', () => {
      // JSON.parse makes `__proto__` an own key, as a request body would; spreading keeps it own.
      const extras = JSON.parse('{"__proto__":{"x":1},"constructor":1,"prototype":1,"extra":1}') as object;
      const input = { ...extras, ...(table.base as object) };
      const errors = errorsOf(schema, input);
      expect(errors.map((error) => [error.loc, error.type, error.msg])).toEqual(
        ['__proto__', 'constructor', 'prototype', 'extra'].map((key) => [[key], 'extra_forbidden', 'Extra inputs are not permitted']),
      );
    });

    it('refuses a non-object', () => {
      for (const input of [[], 'x', 1, null]) expectOnlyError(schema, input, [], 'dict_type');
    });

    for (const bound of table.bounds) {
      const where = bound.path.join('.');
      for (const value of bound.ok ?? []) {
        it(`${where}: accepts ${label(value)}`, () => {
          outputOf(schema, setAt(table.base, bound.path, value));
        });
      }
      for (const [value, type] of bound.bad ?? []) {
        it(`${where}: refuses ${label(value)} (${type})`, () => {
          expectOnlyError(schema, setAt(table.base, bound.path, value), bound.errorLoc ?? bound.path, type);
        });
      }
    }
  });
}

/** Common bound rows. */
export const s = (n: number, char = 'x'): string => char.repeat(n);

export function stringBound(path: Path, max: number, min = 0, wrongType = 'string_type'): BoundCase {
  const bad: [unknown, string][] = [
    [s(max + 1), 'string_too_long'],
    [5, wrongType],
  ];
  if (min > 0) bad.push([s(min - 1), 'string_too_short']);
  return { path, ok: [s(max), s(min)], bad };
}

export function colorBound(path: Path, nullable: boolean): BoundCase {
  return {
    path,
    ok: nullable ? ['gray6', null] : ['gray6'],
    bad: nullable
      ? [['grey', 'enum']]
      : [
          ['grey', 'enum'],
          [null, 'enum'],
        ],
  };
}

export function fractionBound(path: Path): BoundCase {
  return {
    path,
    ok: [0, 1, 1.0, 0.5],
    bad: [
      [1.0000001, 'less_than_equal'],
      [-0.0000001, 'greater_than_equal'],
      ['0.5', 'float_type'],
      [Infinity, 'finite_number'],
    ],
  };
}
