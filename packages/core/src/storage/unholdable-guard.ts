import { isHoldable } from './holdable.js';
import type { Storage } from './storage.js';
import { UNHOLDABLE_RULES, type ArgStrings, type StringSpec, type UnholdableRule } from './unholdable-rules.js';

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

/** Whether the strings of one argument (or of every argument) can all be held. */
type Holds = (value: unknown) => boolean;

function guardMethod(name: string, inner: AnyMethod, rule: UnholdableRule<keyof Storage>, storage: Storage): AnyMethod {
  if (rule === 'no strings') return inner;
  if ('wrap' in rule) return (rule.wrap as (inner: AnyMethod, storage: Storage) => AnyMethod)(inner, storage);
  const keysHold = argumentsHold(rule.keys);
  const valuesHold = argumentsHold(rule.values);
  const absent = rule.absent as AnyMethod | undefined;
  const exists = rule.exists as AnyMethod | undefined;
  const refuse = async (args: unknown[]): Promise<unknown> => {
    if (exists !== undefined && !(await exists(storage, ...args))) return absent!(storage, ...args);
    throw new TypeError(`storage: ${name} was given a NUL or a lone surrogate, which no store can hold`);
  };
  return (...args: unknown[]) => {
    if (!keysHold(args)) return absent!(storage, ...args);
    if (!valuesHold(args)) return refuse(args);
    return inner(...args);
  };
}

/** The check of a method's arguments, built once: only the positions that hold strings are looked at. */
function argumentsHold(specs: ArgStrings<keyof Storage> | undefined): (args: unknown[]) => boolean {
  const positions: number[] = [];
  const checks: Holds[] = [];
  (specs as readonly (StringSpec | null | undefined)[] | undefined)?.forEach((spec, position) => {
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
