import type * as v from 'valibot';
import { Value } from '../blocks.js';
import { atLeastOneOf } from '../at-least-one.js';
import { orNull, strict } from '../primitives.js';
import { widgetFields } from './common.js';

/** `status`: a value and/or a state line; at least one of the two. */
export const statusWidgetSchema = atLeastOneOf(
  strict({
    ...widgetFields('status'),
    value: orNull(Value),
    state: orNull(Value),
  }),
  { value: 'set', state: 'set' },
  'at least one of value and state is required',
);

export type StatusWidgetInput = v.InferInput<typeof statusWidgetSchema>;
export type StatusWidgetOutput = v.InferOutput<typeof statusWidgetSchema>;
