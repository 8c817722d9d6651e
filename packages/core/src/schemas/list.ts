/**
 * A bounded list whose length is checked BEFORE its items: a list of thousands of bad
 * items is one `too_long` error, not thousands of item errors (docs/contract/limits-and-errors.md#field-error-cost:
 * refusing a body costs no more than accepting one). pydantic does the same: a list over
 * `max_length` is reported as `too_long` alone.
 *
 * A `v.lazy` (valibot's public API) picks, per input, a cheap length check for an array
 * that is too long, else the list's full schema. The OpenAPI generator describes it as the
 * full schema (`documentedAs`).
 */
import * as v from 'valibot';
import { documentAs } from './documented.js';

type ListAction<TItem extends v.GenericSchema> = v.PipeAction<v.InferOutput<TItem>[], v.InferOutput<TItem>[], v.BaseIssue<unknown>>;

export function list<const TItem extends v.GenericSchema>(item: TItem, bounds: { min?: number; max: number }, ...actions: ListAction<TItem>[]) {
  const lengthBounds = [
    ...(bounds.min === undefined ? [] : [v.minLength<v.InferOutput<TItem>[], number>(bounds.min)]),
    v.maxLength<v.InferOutput<TItem>[], number>(bounds.max),
  ];
  const full = v.pipe(v.array(item), ...(lengthBounds as []), ...(actions as []));
  const tooLong = v.pipe(v.array(v.unknown()), v.maxLength(bounds.max)) as unknown as typeof full;
  const schema = v.lazy((input: unknown) => (Array.isArray(input) && input.length > bounds.max ? tooLong : full));
  return documentAs(schema, { shape: v.pipe(v.array(v.unknown()), ...(lengthBounds as []), ...(actions as [])), part: 'items', value: item });
}
