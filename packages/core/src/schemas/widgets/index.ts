/** The eleven widget templates (docs/contract/templates.md#widget-templates) and the widget update body. */
import * as v from 'valibot';
import { tagged } from '../discriminated.js';
import { integer, strict } from '../primitives.js';
import { batteryWidgetSchema, type BatteryWidgetInput, type BatteryWidgetOutput } from './battery.js';
import { budgetWidgetSchema, type BudgetWidgetInput, type BudgetWidgetOutput } from './budget.js';
import { countdownWidgetSchema, type CountdownWidgetInput, type CountdownWidgetOutput } from './countdown.js';
import { energyWidgetSchema, type EnergyWidgetInput, type EnergyWidgetOutput } from './energy.js';
import { gaugeWidgetSchema, type GaugeWidgetInput, type GaugeWidgetOutput } from './gauge.js';
import { listWidgetSchema, type ListWidgetInput, type ListWidgetOutput } from './list.js';
import type { WidgetTemplateName } from './names.js';
import { pricesWidgetSchema, type PricesWidgetInput, type PricesWidgetOutput } from './prices.js';
import { progressWidgetSchema, type ProgressWidgetInput, type ProgressWidgetOutput } from './progress.js';
import { statusWidgetSchema, type StatusWidgetInput, type StatusWidgetOutput } from './status.js';
import { switchboardWidgetSchema, type SwitchboardWidgetInput, type SwitchboardWidgetOutput } from './switchboard.js';
import { trendWidgetSchema, type TrendWidgetInput, type TrendWidgetOutput } from './trend.js';

export * from './battery.js';
export * from './budget.js';
export * from './countdown.js';
export * from './energy.js';
export * from './gauge.js';
export * from './list.js';
export * from './names.js';
export * from './prices.js';
export * from './progress.js';
export * from './status.js';
export * from './switchboard.js';
export * from './trend.js';

export const widgetContentSchemas = {
  status: statusWidgetSchema,
  progress: progressWidgetSchema,
  gauge: gaugeWidgetSchema,
  battery: batteryWidgetSchema,
  budget: budgetWidgetSchema,
  trend: trendWidgetSchema,
  countdown: countdownWidgetSchema,
  list: listWidgetSchema,
  prices: pricesWidgetSchema,
  energy: energyWidgetSchema,
  switchboard: switchboardWidgetSchema,
} as const satisfies Record<WidgetTemplateName, v.GenericSchema>;

/** Widget content on its own, chosen by `template` (required here: no widget to default from). */
export const widgetContentSchema = tagged('template', widgetContentSchemas);

/**
 * `stale_after`: seconds, 60 to 604800, or null. Omitted (no default on purpose): the
 * widget keeps its setting; null clears it.
 */
export const staleAfterField = v.optional(v.nullable(v.pipe(integer(), v.minValue(60), v.maxValue(604_800))));

/** The whole widget update body in one schema (for OpenAPI and callers without a resource). */
export const widgetDataSchema = strict({
  content: widgetContentSchema,
  stale_after: staleAfterField,
});

/** Validated, normalised widget content (what is stored and echoed; no `icon_v2`). */
export type WidgetContent =
  | StatusWidgetOutput
  | ProgressWidgetOutput
  | GaugeWidgetOutput
  | BatteryWidgetOutput
  | BudgetWidgetOutput
  | TrendWidgetOutput
  | CountdownWidgetOutput
  | ListWidgetOutput
  | PricesWidgetOutput
  | EnergyWidgetOutput
  | SwitchboardWidgetOutput;

export type WidgetContentInput =
  | StatusWidgetInput
  | ProgressWidgetInput
  | GaugeWidgetInput
  | BatteryWidgetInput
  | BudgetWidgetInput
  | TrendWidgetInput
  | CountdownWidgetInput
  | ListWidgetInput
  | PricesWidgetInput
  | EnergyWidgetInput
  | SwitchboardWidgetInput;

export type WidgetDataInput = v.InferInput<typeof widgetDataSchema>;
