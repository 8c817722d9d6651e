import * as v from 'valibot';
import { pipe } from '../pipe.js';
import { between, orNull, strict, text, textBetween } from '../primitives.js';
import { widgetFields, withDefault } from './common.js';

/** One device of the `battery` widget; `level` is a percentage (fractions allowed). */
export const BatteryDevice = strict({
  name: textBetween(1, 64),
  level: between(0, 100),
  charging: withDefault(v.boolean(), false),
  icon: orNull(text(64)),
});

export const batteryWidgetSchema = strict({
  ...widgetFields('battery'),
  devices: pipe(v.array(BatteryDevice), v.minLength(1), v.maxLength(8)),
});

export type BatteryWidgetInput = v.InferInput<typeof batteryWidgetSchema>;
export type BatteryWidgetOutput = v.InferOutput<typeof batteryWidgetSchema>;
