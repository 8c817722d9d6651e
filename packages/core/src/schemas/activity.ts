/** Activity content templates (docs/contract/templates.md#activity-templates) and `ActivityData`. */
import * as v from 'valibot';
import { Column, iconField, ProgressBar, tapUrlField, Value } from './blocks.js';
import { tagged } from './discriminated.js';
import { ActivityState, ColumnId } from './enums.js';
import { fraction, integer, orNull, strict, text } from './primitives.js';

export const activityTemplateNames = ['progress', 'monitor', 'generic'] as const;
export type ActivityTemplateName = (typeof activityTemplateNames)[number];

/** Fields common to the three templates; `template` defaults to the template's own name. */
function commonFields<const TName extends ActivityTemplateName>(name: TName) {
  return {
    template: v.optional(v.literal(name), name),
    tap_url: tapUrlField,
    icon: iconField,
  };
}

export const progressActivitySchema = strict({
  ...commonFields('progress'),
  progress: ProgressBar,
  header_left: orNull(Value),
  header_right: orNull(Value),
  footer_left: orNull(Value),
  footer_right: orNull(Value),
  compact_value: orNull(Value),
});

export const monitorActivitySchema = strict({
  ...commonFields('monitor'),
  left_column: orNull(Column),
  right_column: orNull(Column),
  primary_column: v.optional(ColumnId, 'right'),
});

/** The legacy original simple progress layout. */
export const genericActivitySchema = strict({
  ...commonFields('generic'),
  progress: fraction(),
  remaining_time: orNull(v.pipe(integer(), v.minValue(0))),
  state: orNull(text(32)),
});

export const activityContentSchemas = {
  progress: progressActivitySchema,
  monitor: monitorActivitySchema,
  generic: genericActivitySchema,
} as const satisfies Record<ActivityTemplateName, v.GenericSchema>;

/**
 * Activity content on its own, chosen by `template`. Without the activity at hand the
 * template cannot default, so here it is required; the handler instead validates with
 * `activityContentSchemas[template]` after filling the activity's own template in.
 */
export const activityContentSchema = tagged('template', activityContentSchemas);

/** The whole `ActivityData` request body in one schema (for OpenAPI and callers without a resource). */
export const activityDataSchema = strict({
  state: ActivityState,
  content: activityContentSchema,
});

export type ProgressActivityInput = v.InferInput<typeof progressActivitySchema>;
export type ProgressActivityOutput = v.InferOutput<typeof progressActivitySchema>;
export type MonitorActivityInput = v.InferInput<typeof monitorActivitySchema>;
export type MonitorActivityOutput = v.InferOutput<typeof monitorActivitySchema>;
export type GenericActivityInput = v.InferInput<typeof genericActivitySchema>;
export type GenericActivityOutput = v.InferOutput<typeof genericActivitySchema>;
/** Validated, normalised activity content (what is stored): every field present. */
export type ActivityContent = ProgressActivityOutput | MonitorActivityOutput | GenericActivityOutput;
export type ActivityContentInput = ProgressActivityInput | MonitorActivityInput | GenericActivityInput;
export type ActivityDataInput = v.InferInput<typeof activityDataSchema>;
