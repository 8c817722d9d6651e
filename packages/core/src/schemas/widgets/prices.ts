import * as v from 'valibot';
import { valueError } from '../messages.js';
import { arrayItem, finiteNumber, objectItem, orNull, strict, text, timestamp } from '../primitives.js';
import { parseTimestamp } from '../timestamp.js';
import { widgetFields } from './common.js';
import { list } from '../list.js';

export const PriceLevel = v.picklist(['low', 'medium', 'high']);

/** One price period starting at `start`; prices may be negative. */
export const PriceEntry = strict({
  start: timestamp(),
  price: finiteNumber(),
  level: orNull(PriceLevel),
});

const NOT_INCREASING = valueError('start must be later than the start of the previous entry');

/** Reports each entry whose `start` is not strictly after the previous one, at `[i, "start"]`. */
function startsStrictlyIncrease({ dataset, addIssue }: v.RawCheckContext<v.InferOutput<typeof PriceEntry>[]>): void {
  if (!dataset.typed) return;
  const entries = dataset.value;
  for (let index = 1; index < entries.length; index++) {
    // Compared as instants: `10:00+01:00` and `09:00Z` are the same moment.
    const previous = parseTimestamp(entries[index - 1]!.start)!.instant;
    const current = parseTimestamp(entries[index]!.start)!.instant;
    if (current > previous) continue;
    addIssue({ message: NOT_INCREASING, path: [arrayItem(entries, index), objectItem(entries[index]!, 'start')] });
  }
}

export const pricesWidgetSchema = strict({
  ...widgetFields('prices'),
  entries: list(
    PriceEntry,
    { min: 1, max: 48 },
    v.rawCheck(startsStrictlyIncrease),
    v.description('Each `start` is a later instant than the previous entry’s.'),
  ),
  unit: orNull(text(16)),
});

export type PricesWidgetInput = v.InferInput<typeof pricesWidgetSchema>;
export type PricesWidgetOutput = v.InferOutput<typeof pricesWidgetSchema>;
