import type * as v from 'valibot';
import { ProgressBar, Value } from '../blocks.js';
import { orNull, strict, timestamp } from '../primitives.js';
import { widgetFields } from './common.js';

/** `progress`: a bar; the device keeps the bar and a countdown moving until `end_date`. */
export const progressWidgetSchema = strict({
  ...widgetFields('progress'),
  progress: ProgressBar,
  state: orNull(Value),
  end_date: orNull(timestamp()),
});

export type ProgressWidgetInput = v.InferInput<typeof progressWidgetSchema>;
export type ProgressWidgetOutput = v.InferOutput<typeof progressWidgetSchema>;
