import * as v from 'valibot';
import { iconField, Value } from '../blocks.js';
import { Color } from '../enums.js';
import { atLeast, greaterThan, orNull, strict, textBetween } from '../primitives.js';
import { widgetFields, withDefault } from './common.js';
import { list } from '../list.js';

/** `budget: null` means spending only (no budget to compare with). */
export const BudgetTotal = strict({
  spent: atLeast(0),
  budget: orNull(greaterThan(0)),
});

/** `icon` here is the shared icon field (string, Icon or null), like the widget's own. */
export const BudgetCategory = strict({
  label: textBetween(1, 64),
  spent: atLeast(0),
  budget: orNull(greaterThan(0)),
  icon: iconField,
  color: orNull(Color),
});

export const BudgetDisplay = v.picklist(['remaining', 'spent']);

export const budgetWidgetSchema = strict({
  ...widgetFields('budget'),
  total: BudgetTotal,
  categories: orNull(list(BudgetCategory, { max: 6 })),
  // ISO 4217 alphabetic code.
  currency: v.pipe(v.string(), v.regex(/^[A-Z]{3}$/)),
  display: withDefault(BudgetDisplay, 'remaining'),
  subtitle: orNull(Value),
});

export type BudgetWidgetInput = v.InferInput<typeof budgetWidgetSchema>;
export type BudgetWidgetOutput = v.InferOutput<typeof budgetWidgetSchema>;
