import { isHoldable } from './holdable.js';
import type { Storage } from './storage.js';
import { UNHOLDABLE_RULES, type StringSpec, type UnholdableRule } from './unholdable-rules.js';

/**
 * Wraps a store so that it keeps the `Storage` rule for strings no store can hold (a NUL,
 * a lone surrogate: `isHoldable` is false) whatever it does underneath: a call keyed by
 * one answers as for an absent record without reaching the store, and a write that would
 * record one rejects with a `TypeError` (after the store confirmed the record it would go
 * to exists, so a missing record still answers first). Both Tilecast stores return
 * guarded storage; a third-party store wraps itself the same way and passes the
 * conformance concern `unholdableValues`.
 *
 * The result is a plain object: the store's own properties (its extras too, such as a
 * `stats()`), and every `Storage` method it has, guarded, called on the store itself. What
 * each method guards is one row of `UNHOLDABLE_RULES`. A call whose strings all hold costs
 * the checks of its keys and values, and nothing else.
 */
export function guardUnholdable<S extends Storage>(storage: S): S {
  const guarded = { ...storage } as Record<string, unknown>;
  for (const name of Object.keys(UNHOLDABLE_RULES) as (keyof Storage)[]) {
    const method: unknown = storage[name];
    if (typeof method !== 'function') continue; // an optional method the store lacks stays absent
    const inner = method.bind(storage) as AnyMethod;
    guarded[name] = guardMethod(name, inner, UNHOLDABLE_RULES[name] as UnholdableRule<keyof Storage>, storage);
  }
  return guarded as S;
}

// biome-ignore lint/suspicious/noExplicitAny: one signature for every method of the table; each row is typed by its method
type AnyMethod = (...args: any[]) => any;

/** Whether the strings of one argument can all be held. */
type Holds = (value: unknown) => boolean;

/**
 * Where an argument's strings are, for the check of a call: `NONE` (it holds none), `STRING`
 * (it is one), `DEEP` (in its fields or items: its `Holds`).
 */
const NONE = 0;
const STRING = 1;
const DEEP = 2;
type Where = typeof NONE | typeof STRING | typeof DEEP;

/**
 * A method's guard, cheap on the path every store call takes: its wrapper is one of five,
 * by the method's number of arguments (its rule lists every one), and passes them on as
 * they are (no rest array, no spread). Its strings are checked in line, a string by
 * `isHoldable` itself, a record or a list by a check built once from its spec. V8 shares
 * one function literal's feedback between all the closures made from it, so the wrappers
 * of one arity share theirs whatever the factory: the guard keeps that shared code free of
 * arrays and of property loads other than the record checks'. Only a call with a string
 * that cannot hold builds an array, for `refused`, which sorts out the answer.
 */
function guardMethod(name: string, inner: AnyMethod, rule: UnholdableRule<keyof Storage>, storage: Storage): AnyMethod {
  if (rule === 'no strings') return inner;
  if ('wrap' in rule) return (rule.wrap as (inner: AnyMethod, storage: Storage) => AnyMethod)(inner, storage);
  const keys = rule.keys as readonly (StringSpec | null)[] | undefined;
  const values = rule.values as readonly (StringSpec | null)[] | undefined;
  const arity = (keys ?? values)!.length; // each lists every argument of its method
  const where: Where[] = [];
  const deep: (Holds | undefined)[] = [];
  for (let i = 0; i < arity; i++) {
    const specs = [keys?.[i], values?.[i]].filter((spec) => spec !== null && spec !== undefined) as StringSpec[];
    const checks = specs.map(stringsHold);
    where.push(specs.length === 0 ? NONE : specs.length === 1 && specs[0] === true ? STRING : DEEP);
    deep.push(checks.length === 1 ? checks[0] : checks.length === 2 ? (argument) => checks[0]!(argument) && checks[1]!(argument) : undefined);
  }
  const keysHold = argumentsHold(keys);
  const absent = rule.absent as AnyMethod | undefined;
  const exists = rule.exists as AnyMethod | undefined;
  const refuse = async (args: unknown[]): Promise<unknown> => {
    if (exists !== undefined && !(await exists(storage, ...args))) return absent!(storage, ...args);
    throw new TypeError(`storage: ${name} was given a NUL or a lone surrogate, which no store can hold`);
  };
  // Only when some string cannot hold: a key names nothing, else a value is refused.
  const refused = (args: unknown[]) => (keysHold(args) ? refuse(args) : absent!(storage, ...args));
  const [w0, w1, w2, w3, w4] = where;
  const [d0, d1, d2, d3, d4] = deep;
  switch (arity) {
    case 0:
      return inner;
    case 1:
      return (a: unknown) => (holds(w0, d0, a) ? inner(a) : refused([a]));
    case 2:
      return (a: unknown, b: unknown) => (holds(w0, d0, a) && holds(w1, d1, b) ? inner(a, b) : refused([a, b]));
    case 3:
      return (a: unknown, b: unknown, c: unknown) => (holds(w0, d0, a) && holds(w1, d1, b) && holds(w2, d2, c) ? inner(a, b, c) : refused([a, b, c]));
    case 4:
      return (a: unknown, b: unknown, c: unknown, d: unknown) =>
        holds(w0, d0, a) && holds(w1, d1, b) && holds(w2, d2, c) && holds(w3, d3, d) ? inner(a, b, c, d) : refused([a, b, c, d]);
    case 5:
      return (a: unknown, b: unknown, c: unknown, d: unknown, e: unknown) =>
        holds(w0, d0, a) && holds(w1, d1, b) && holds(w2, d2, c) && holds(w3, d3, d) && holds(w4, d4, e) ? inner(a, b, c, d, e) : refused([a, b, c, d, e]);
    default:
      throw new Error(`guardUnholdable: ${name} takes ${arity} arguments; the guard has wrappers for 1 to 5`);
  }
}

/** One argument's strings all hold (an absent value, null or undefined, holds). */
function holds(where: Where | undefined, deep: Holds | undefined, value: unknown): boolean {
  if (where === NONE) return true;
  if (where === STRING) return typeof value !== 'string' || isHoldable(value);
  return deep!(value);
}

/** The check of a method's keys, for a call some string of which cannot hold: only the positions that hold strings are looked at. */
function argumentsHold(specs: readonly (StringSpec | null)[] | undefined): (args: unknown[]) => boolean {
  const positions: number[] = [];
  const checks: Holds[] = [];
  specs?.forEach((spec, position) => {
    if (spec === null || spec === undefined) return;
    positions.push(position);
    checks.push(stringsHold(spec));
  });
  if (positions.length === 0) return () => true;
  return (args) => {
    for (let i = 0; i < positions.length; i++) if (!checks[i]!(args[positions[i]!])) return false;
    return true;
  };
}

/** The check of one argument's strings, built once from its spec. An absent value (null, undefined) holds. */
function stringsHold(spec: StringSpec): Holds {
  if (spec === true) return (value) => typeof value !== 'string' || isHoldable(value);
  if (spec === 'json') return jsonHolds;
  if (Array.isArray(spec)) {
    const item = stringsHold(spec[0] as StringSpec);
    return (value) => {
      if (!Array.isArray(value)) return true;
      for (let i = 0; i < value.length; i++) if (!item(value[i])) return false;
      return true;
    };
  }
  const names = Object.keys(spec);
  const checks = names.map((name) => stringsHold((spec as Record<string, StringSpec>)[name]!));
  return (value) => {
    if (value === null || typeof value !== 'object') return true;
    for (let i = 0; i < names.length; i++) if (!checks[i]!((value as Record<string, unknown>)[names[i]!])) return false;
    return true;
  };
}

/** Every string of a JSON value, object keys included (a webhook map), can be held. */
function jsonHolds(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') {
      if (!isHoldable(item)) return false;
    } else if (Array.isArray(item)) stack.push(...item);
    else if (item !== null && typeof item === 'object') {
      for (const [key, inner] of Object.entries(item)) {
        if (!isHoldable(key)) return false;
        stack.push(inner);
      }
    }
  }
  return true;
}
