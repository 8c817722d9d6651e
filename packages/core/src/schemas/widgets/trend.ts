import type * as v from 'valibot';
import { Value } from '../blocks.js';
import { Color } from '../enums.js';
import { finiteNumber, orNull, strict, text } from '../primitives.js';
import { widgetFields } from './common.js';
import { list } from '../list.js';

/** `trend`: the current value and its history, oldest point first; `color` null: the accent. */
export const trendWidgetSchema = strict({
  ...widgetFields('trend'),
  value: finiteNumber(),
  points: list(finiteNumber(), { min: 2, max: 48 }),
  unit: orNull(text(16)),
  state: orNull(Value),
  color: orNull(Color),
});

export type TrendWidgetInput = v.InferInput<typeof trendWidgetSchema>;
export type TrendWidgetOutput = v.InferOutput<typeof trendWidgetSchema>;
