/**
 * `@tilecast/core/schemas`, the public entry: the valibot schemas of every template and of
 * the two publisher update bodies, for clients and tools that check content as the core
 * does, and the template names (docs/decisions/0102-schemas-entry.md). The core's services
 * import `./index.js`, which also holds the building blocks, echo helpers, envelopes and
 * device-API bodies this entry leaves out.
 */
export {
  activityContentSchemas,
  activityDataSchema,
  activityTemplateNames,
  genericActivitySchema,
  monitorActivitySchema,
  progressActivitySchema,
} from './activity.js';
export type {
  ActivityDataInput,
  ActivityTemplateName,
  GenericActivityInput,
  GenericActivityOutput,
  MonitorActivityInput,
  MonitorActivityOutput,
  ProgressActivityInput,
  ProgressActivityOutput,
} from './activity.js';
export {
  batteryWidgetSchema,
  budgetWidgetSchema,
  countdownWidgetSchema,
  energyWidgetSchema,
  gaugeWidgetSchema,
  listWidgetSchema,
  pricesWidgetSchema,
  progressWidgetSchema,
  statusWidgetSchema,
  switchboardWidgetSchema,
  trendWidgetSchema,
  widgetContentSchemas,
  widgetDataSchema,
  widgetTemplateNames,
} from './widgets/index.js';
export type {
  BatteryWidgetInput,
  BatteryWidgetOutput,
  BudgetWidgetInput,
  BudgetWidgetOutput,
  CountdownWidgetInput,
  CountdownWidgetOutput,
  EnergyWidgetInput,
  EnergyWidgetOutput,
  GaugeWidgetInput,
  GaugeWidgetOutput,
  ListWidgetInput,
  ListWidgetOutput,
  PricesWidgetInput,
  PricesWidgetOutput,
  ProgressWidgetInput,
  ProgressWidgetOutput,
  StatusWidgetInput,
  StatusWidgetOutput,
  SwitchboardWidgetInput,
  SwitchboardWidgetOutput,
  TrendWidgetInput,
  TrendWidgetOutput,
  WidgetDataInput,
  WidgetTemplateName,
} from './widgets/index.js';
// The type of every object schema above (a valibot strict object, see `strict`).
export type { StrictSchema } from './primitives.js';
