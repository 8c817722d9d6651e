import type { Storage } from '@tilecast/core';
import { describe, expectTypeOf, it } from 'vitest';

// Checked by `npm run typecheck` (expectTypeOf does nothing at run time).

/** True when a parameter list has two numbers side by side. */
type NumberRun<P extends readonly unknown[]> = P extends readonly [infer A, infer B, ...infer Rest]
  ? [A] extends [number]
    ? [B] extends [number]
      ? true
      : NumberRun<[B, ...Rest]>
    : NumberRun<[B, ...Rest]>
  : false;

/** The methods of `Storage` that take two numbers side by side. */
type PositionalNumberRuns = {
  [K in keyof Storage]-?: NonNullable<Storage[K]> extends (...args: infer P) => unknown ? (NumberRun<P> extends true ? K : never) : never;
}[keyof Storage];

describe('the Storage contract reads at the call site', () => {
  it('the check finds a run of positional numbers', () => {
    expectTypeOf<NumberRun<[accountId: string, after: number, now: number, limit: number]>>().toEqualTypeOf<true>();
    expectTypeOf<NumberRun<[key: string, now: number, key2: string, windowMs: number]>>().toEqualTypeOf<false>();
  });

  it('no method takes two positional numbers side by side', () => {
    expectTypeOf<PositionalNumberRuns>().toEqualTypeOf<never>();
  });
});
