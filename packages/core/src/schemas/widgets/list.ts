import type * as v from 'valibot';
import { Value } from '../blocks.js';
import { orNull, strict, text, textBetween } from '../primitives.js';
import { widgetFields } from './common.js';
import { list } from '../list.js';

export const ListRow = strict({
  label: textBetween(1, 64),
  value: Value,
  icon: orNull(text(64)),
});

export const listWidgetSchema = strict({
  ...widgetFields('list'),
  rows: list(ListRow, { min: 1, max: 6 }),
});

export type ListWidgetInput = v.InferInput<typeof listWidgetSchema>;
export type ListWidgetOutput = v.InferOutput<typeof listWidgetSchema>;
