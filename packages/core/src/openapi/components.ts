/**
 * The named components of `/openapi.json`, each the very valibot schema the service
 * validates with (no hand-written copy of a field list). `output` is given where the
 * echo differs from the request by more than "every field present" (the activity
 * content carries `icon_v2`).
 */
import * as v from 'valibot';
import * as schemas from '../schemas/index.js';
import * as webhooks from '../webhooks/map-schema.js';
import { SUBJECT_KINDS } from '../events/filters.js';
import { EVENT_TYPE } from '../presses/press-intake.js';

export interface NamedSchema {
  name: string;
  input: v.GenericSchema;
  /** The response shape; default: `input`. */
  output?: v.GenericSchema;
  /**
   * A response-only shape described as declared: its optional fields stay optional (the
   * generic output rule, "every field present", is for echoes).
   */
  asDeclared?: boolean;
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

/**
 * The event envelope ("Events → Envelope"), sent on `GET /events` and as the default
 * webhook body. Response-only: the service writes it, so it is described here.
 */
const timestamp = (description: string) => v.pipe(v.string(), v.metadata({ format: 'date-time' }), v.description(description));
export const EventSubject = v.object({
  kind: v.pipe(v.picklist(SUBJECT_KINDS), v.description('The kind of resource; read it together with `slug` (more kinds will come).')),
  slug: v.string(),
});
export const WidgetActionData = v.object({
  action: v.pipe(v.string(), v.description('The id of the pressed action, as published in the widget content.')),
  kind: v.picklist(['button', 'toggle']),
  value: v.pipe(v.optional(v.boolean()), v.description('Toggles only: the requested state (a request, not a fact). Absent for a button.')),
});
export const EventEnvelope = v.object({
  id: v.pipe(
    v.string(),
    v.uuid(),
    v.description('Delivery id, identical on every retry of one press; also the `Idempotency-Key` of webhooks. Deduplicate on it.'),
  ),
  request_id: v.pipe(v.string(), v.description('The id the phone gave the press; unique only within one widget. Not for deduplication.')),
  type: v.pipe(v.picklist([EVENT_TYPE]), v.description('Event type with data version.')),
  subject: EventSubject,
  occurred_at: timestamp('When the press happened (ISO 8601).'),
  expires_at: timestamp('5 seconds after `occurred_at`: delivery stops then; drop an event that arrives later.'),
  data: WidgetActionData,
});

/** What the device sync API reads (docs/contract/device-api.md#device-widgets-list, docs/contract/device-api.md#device-activities-list): a widget or a live activity shown on this device. */
const privacy = v.picklist(['visible', 'hidden_when_locked']);
export const DeviceWidget = v.object({
  owner: v.string(),
  slug: v.string(),
  template: v.picklist(schemas.widgetTemplateNames),
  content: v.pipe(v.nullable(schemas.widgetContentSchema), v.description('The stored content; null for a widget never published.')),
  stale_after: v.nullable(v.pipe(v.number(), v.integer())),
  updated_at: v.nullable(timestamp('When the content was last published; null for a widget never published.')),
  privacy,
});
export const DeviceActivity = v.object({
  owner: v.string(),
  slug: v.string(),
  template: v.picklist(schemas.activityTemplateNames),
  state: schemas.ActivityState,
  content: v.nullable(schemas.activityContentSchema),
  dismissal_delay_s: v.pipe(v.number(), v.integer(), v.minValue(0)),
  updated_at: v.nullable(timestamp('When the activity was last updated.')),
  // docs/contract/broadcast-channels.md#broadcast-channel-id-sync
  channel_id: v.pipe(
    v.nullable(v.string()),
    v.description(
      'The APNs broadcast channel carrying its updates in the environment this device registered, to subscribe to with `pushType: .channel(id)`; null for per-token delivery.',
    ),
  ),
});
export const DeviceWidgetList = v.object({ widgets: v.array(DeviceWidget) });
export const DeviceActivityList = v.object({ activities: v.array(DeviceActivity) });

/** `202` of `POST /device/presses`. */
export const PressAccepted = v.object({ event_id: v.pipe(v.string(), v.uuid()) });

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
  // Events.
  { name: 'EventSubject', input: EventSubject, asDeclared: true },
  { name: 'WidgetActionData', input: WidgetActionData, asDeclared: true },
  { name: 'EventEnvelope', input: EventEnvelope, asDeclared: true },
  // The device API (mounted under /device by the reference deployment).
  { name: 'PressReport', input: schemas.pressReport },
  { name: 'PressAccepted', input: PressAccepted },
  { name: 'PushRegistration', input: schemas.pushRegistration },
  { name: 'ActivityPushToken', input: schemas.activityPushToken },
  { name: 'FcmRegistration', input: schemas.fcmRegistration },
  { name: 'DeviceWidget', input: DeviceWidget, asDeclared: true },
  { name: 'DeviceActivity', input: DeviceActivity, asDeclared: true },
  { name: 'DeviceWidgetList', input: DeviceWidgetList, asDeclared: true },
  { name: 'DeviceActivityList', input: DeviceActivityList, asDeclared: true },
  // Errors.
  { name: 'ValidationError', input: ValidationError },
  { name: 'HTTPValidationError', input: HTTPValidationError },
  { name: 'ErrorResponse', input: ErrorResponse },
];
