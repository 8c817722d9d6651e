import * as v from 'valibot';
import { Color } from '../enums.js';
import { valueError } from '../messages.js';
import { finiteNumber, orNull, strict, text } from '../primitives.js';
import { widgetFields, withDefault } from './common.js';

/**
 * `gauge`. A value outside min..max is stored as sent (the device clamps it for display);
 * `color` null means a cool-to-warm gradient.
 */
export const gaugeWidgetSchema = v.pipe(
  strict({
    ...widgetFields('gauge'),
    value: finiteNumber(),
    min_value: withDefault(finiteNumber(), 0),
    max_value: withDefault(finiteNumber(), 100),
    unit: orNull(text(16)),
    label: orNull(text(64)),
    color: orNull(Color),
  }),
  v.forward(
    v.partialCheck([['min_value'], ['max_value']], (content) => content.max_value > content.min_value, valueError('max_value must be greater than min_value')),
    ['max_value'],
  ),
  // A rule between two fields, which JSON Schema cannot say: `/openapi.json` says it in words.
  v.description('`max_value` (default 100) must be greater than `min_value` (default 0).'),
);

export type GaugeWidgetInput = v.InferInput<typeof gaugeWidgetSchema>;
export type GaugeWidgetOutput = v.InferOutput<typeof gaugeWidgetSchema>;
