/**
 * The activity echo: stored content plus the read-only `icon_v2` next to `icon`
 * (docs/contract/publisher-api.md#activity-response-echo, docs/contract/publisher-api.md#echo-icon-v2).
 * Activities only: widget echoes carry no `icon_v2`.
 */
import * as v from 'valibot';
import { activityContentSchemas, type ActivityTemplateName } from './activity.js';
import { Icon } from './blocks.js';
import { tagged } from './discriminated.js';
import { ActivityState } from './enums.js';
import { isPlainObject, setOwn, strict, strictShape, type StrictSchema } from './primitives.js';

/** The `icon` field normalised to an Icon object (every field present), or null. */
export function normaliseIcon(icon: unknown): Icon | null {
  if (typeof icon === 'string') return iconOf(icon, undefined);
  if (!isPlainObject(icon) || typeof icon.name !== 'string') return null;
  return iconOf(icon.name, icon);
}

/** One object literal (one hidden class) for every echoed icon: this runs on every activity update. */
function iconOf(name: string, fields: Record<string, unknown> | undefined): Icon {
  return {
    name,
    rendering_mode: (fields?.rendering_mode ?? null) as Icon['rendering_mode'],
    primary_color: (fields?.primary_color ?? null) as Icon['primary_color'],
    secondary_color: (fields?.secondary_color ?? null) as Icon['secondary_color'],
    tertiary_color: (fields?.tertiary_color ?? null) as Icon['tertiary_color'],
    color_rendering: (fields?.color_rendering ?? null) as Icon['color_rendering'],
  };
}

/**
 * Adds `icon_v2` right after `icon` (at the end if there is no `icon`). Works on stored
 * content, which is already validated and normalised; a stale `icon_v2` is replaced.
 */
export function withIconV2<TContent extends Record<string, unknown>>(content: TContent): TContent & { icon_v2: Icon | null } {
  const echo: Record<string, unknown> = {};
  let hasIcon = false;
  for (const key of Object.keys(content)) {
    if (key === 'icon_v2') continue;
    setOwn(echo, key, content[key]);
    if (key === 'icon') {
      echo.icon_v2 = normaliseIcon(content[key]);
      hasIcon = true;
    }
  }
  if (!hasIcon) echo.icon_v2 = null;
  return echo as TContent & { icon_v2: Icon | null };
}

const iconV2Field = v.pipe(
  v.nullable(Icon),
  v.metadata({ readOnly: true, description: 'The icon normalised to an Icon object, or null when there is no icon.' }),
);

/** A template schema with `icon_v2` inserted after `icon`: describes (and checks) the echo. */
function echoSchema<const TEntries extends v.ObjectEntries>(schema: StrictSchema<TEntries>) {
  const entries: v.ObjectEntries = {};
  for (const [key, entry] of Object.entries(strictShape(schema)!.entries)) {
    entries[key] = entry;
    if (key === 'icon') entries.icon_v2 = iconV2Field;
  }
  return strict(entries) as unknown as StrictSchema<TEntries & { icon_v2: typeof iconV2Field }>;
}

export const activityEchoSchemas = {
  progress: echoSchema(activityContentSchemas.progress),
  monitor: echoSchema(activityContentSchemas.monitor),
  generic: echoSchema(activityContentSchemas.generic),
} as const satisfies Record<ActivityTemplateName, v.GenericSchema>;

export const activityEchoContentSchema = tagged('template', activityEchoSchemas);

/** The `200` body of `PATCH /activity/{activity_id}` (`ActivityData` output). */
export const activityDataEchoSchema = strict({
  state: ActivityState,
  content: activityEchoContentSchema,
});

/** What the activity endpoint returns as `content`. */
export type ActivityContentEcho = v.InferOutput<typeof activityEchoContentSchema>;
export type ActivityDataOutput = v.InferOutput<typeof activityDataEchoSchema>;
