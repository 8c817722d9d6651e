/**
 * The named components of `/openapi.json`, each the very valibot schema the service
 * validates with (no hand-written copy of a field list). `output` is given where the
 * echo differs from the request by more than "every field present" (the activity
 * content carries `icon_v2`).
 */
import * as v from 'valibot';
import * as schemas from '../schemas/index.js';
import * as webhooks from '../webhooks/map-schema.js';

export interface NamedSchema {
  name: string;
  input: v.GenericSchema;
  /** The response shape; default: `input`. */
  output?: v.GenericSchema;
}

/** `{loc, msg, type}`: the FieldError items of a 422 body. */
export const ValidationError = v.object({
  loc: v.array(v.union([v.string(), v.pipe(v.number(), v.integer())])),
  msg: v.string(),
  type: v.string(),
});

export const HTTPValidationError = v.object({ detail: v.array(ValidationError) });

/** Every refusal with a string detail (400, 401, 402, 404, some 422). */
export const ErrorResponse = v.object({ detail: v.string() });

const echoes = schemas.activityEchoSchemas;

export const namedSchemas: readonly NamedSchema[] = [
  // Enumerations.
  { name: 'ActivityState', input: schemas.ActivityState },
  { name: 'Color', input: schemas.Color },
  { name: 'ColorRendering', input: schemas.ColorRendering },
  { name: 'ColumnId', input: schemas.ColumnId },
  { name: 'RenderingMode', input: schemas.RenderingMode },
  { name: 'SegmentDisplay', input: schemas.SegmentDisplay },
  { name: 'TrackFill', input: schemas.TrackFill },
  { name: 'ValueFormatter', input: schemas.ValueFormatter },
  // Building blocks.
  { name: 'Icon', input: schemas.Icon },
  { name: 'Value', input: schemas.Value },
  { name: 'Column', input: schemas.Column },
  { name: 'Segment', input: schemas.Segment },
  { name: 'SimpleProgressBar', input: schemas.SimpleProgressBar },
  { name: 'SegmentedProgressBar', input: schemas.SegmentedProgressBar },
  { name: 'ProgressBar', input: schemas.ProgressBar },
  // Activities.
  { name: 'ProgressActivityContent', input: schemas.progressActivitySchema, output: echoes.progress },
  { name: 'MonitorActivityContent', input: schemas.monitorActivitySchema, output: echoes.monitor },
  { name: 'GenericActivityContent', input: schemas.genericActivitySchema, output: echoes.generic },
  { name: 'ActivityContent', input: schemas.activityContentSchema, output: schemas.activityEchoContentSchema },
  { name: 'ActivityData', input: schemas.activityDataSchema, output: schemas.activityDataEchoSchema },
  // Widgets.
  { name: 'StatusWidgetContent', input: schemas.statusWidgetSchema },
  { name: 'ProgressWidgetContent', input: schemas.progressWidgetSchema },
  { name: 'GaugeWidgetContent', input: schemas.gaugeWidgetSchema },
  { name: 'BatteryDevice', input: schemas.BatteryDevice },
  { name: 'BatteryWidgetContent', input: schemas.batteryWidgetSchema },
  { name: 'BudgetTotal', input: schemas.BudgetTotal },
  { name: 'BudgetCategory', input: schemas.BudgetCategory },
  { name: 'BudgetDisplay', input: schemas.BudgetDisplay },
  { name: 'BudgetWidgetContent', input: schemas.budgetWidgetSchema },
  { name: 'TrendWidgetContent', input: schemas.trendWidgetSchema },
  { name: 'CountdownWidgetContent', input: schemas.countdownWidgetSchema },
  { name: 'ListRow', input: schemas.ListRow },
  { name: 'ListWidgetContent', input: schemas.listWidgetSchema },
  { name: 'PriceLevel', input: schemas.PriceLevel },
  { name: 'PriceEntry', input: schemas.PriceEntry },
  { name: 'PricesWidgetContent', input: schemas.pricesWidgetSchema },
  { name: 'EnergySource', input: schemas.EnergySource },
  { name: 'GridNode', input: schemas.GridNode },
  { name: 'BatteryNode', input: schemas.BatteryNode },
  { name: 'HomeNode', input: schemas.HomeNode },
  { name: 'EnergyWidgetContent', input: schemas.energyWidgetSchema },
  { name: 'StateWords', input: schemas.StateWords },
  { name: 'SwitchboardButton', input: schemas.SwitchboardButton },
  { name: 'SwitchboardToggle', input: schemas.SwitchboardToggle },
  { name: 'SwitchboardAction', input: schemas.SwitchboardAction },
  { name: 'SwitchboardGradient', input: schemas.SwitchboardGradient },
  { name: 'SwitchboardPicture', input: schemas.SwitchboardPicture },
  { name: 'SwitchboardWidgetContent', input: schemas.switchboardWidgetSchema },
  { name: 'WidgetContent', input: schemas.widgetContentSchema },
  { name: 'WidgetData', input: schemas.widgetDataSchema },
  // Webhooks: the request shapes, and the redacted map of PUT and GET.
  { name: 'WebhookEntry', input: webhooks.WebhookEntryInput },
  { name: 'WebhookMap', input: webhooks.WebhookMapInput },
  { name: 'WebhookConfig', input: webhooks.WebhookConfigOutput },
  { name: 'WebhookEntryStatus', input: webhooks.WebhookEntryStatus },
  { name: 'WebhookMapResponse', input: webhooks.WebhookMapOutput },
  // The device API's press report (mounted under /device by the reference deployment; not a publisher path).
  { name: 'PressReport', input: schemas.pressReport },
  // Errors.
  { name: 'ValidationError', input: ValidationError },
  { name: 'HTTPValidationError', input: HTTPValidationError },
  { name: 'ErrorResponse', input: ErrorResponse },
];
