import * as v from 'valibot';
import { between, orNull, strict, text, textBetween } from '../primitives.js';
import { widgetFields, withDefault } from './common.js';
import { list } from '../list.js';

/** One device of the `battery` widget; `level` is a percentage (fractions allowed). */
export const BatteryDevice = strict({
  name: textBetween(1, 64),
  level: between(0, 100),
  charging: withDefault(v.boolean(), false),
  icon: orNull(text(64)),
});

export const batteryWidgetSchema = strict({
  ...widgetFields('battery'),
  devices: list(BatteryDevice, { min: 1, max: 8 }),
});

export type BatteryWidgetInput = v.InferInput<typeof batteryWidgetSchema>;
export type BatteryWidgetOutput = v.InferOutput<typeof batteryWidgetSchema>;
