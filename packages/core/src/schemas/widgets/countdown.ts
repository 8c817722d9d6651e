import type * as v from 'valibot';
import { Value } from '../blocks.js';
import { orNull, strict, text, timestamp } from '../primitives.js';
import { widgetFields } from './common.js';

/** `countdown` to `target`; `expired_text` null: the device shows the elapsed time. */
export const countdownWidgetSchema = strict({
  ...widgetFields('countdown'),
  target: timestamp(),
  subtitle: orNull(Value),
  expired_text: orNull(text(64)),
});

export type CountdownWidgetInput = v.InferInput<typeof countdownWidgetSchema>;
export type CountdownWidgetOutput = v.InferOutput<typeof countdownWidgetSchema>;
