/**
 * The activity echo: stored content plus the read-only `icon_v2` (spec: "In the echoed
 * content, templates additionally carry a read-only icon_v2 next to the icon field";
 * reference-deployment §3). Activities only: widget echoes carry no `icon_v2`.
 */
import * as v from 'valibot';
import { activityContentSchemas, type ActivityTemplateName } from './activity.js';
import { Icon } from './blocks.js';
import { tagged } from './discriminated.js';
import { ActivityState } from './enums.js';
import { isPlainObject, strict } from './primitives.js';

const ICON_FIELDS = ['rendering_mode', 'primary_color', 'secondary_color', 'tertiary_color', 'color_rendering'] as const;

/** The `icon` field normalised to an Icon object (every field present), or null. */
export function normaliseIcon(icon: unknown): Icon | null {
  if (typeof icon === 'string') return { name: icon, ...nullIconFields() };
  if (!isPlainObject(icon) || typeof icon.name !== 'string') return null;
  const normalised = { name: icon.name, ...nullIconFields() } as Record<string, unknown>;
  for (const field of ICON_FIELDS) normalised[field] = icon[field] ?? null;
  return normalised as Icon;
}

function nullIconFields(): Omit<Icon, 'name'> {
  return { rendering_mode: null, primary_color: null, secondary_color: null, tertiary_color: null, color_rendering: null };
}

/**
 * Adds `icon_v2` right after `icon` (at the end if there is no `icon`). Works on stored
 * content, which is already validated and normalised; a stale `icon_v2` is replaced.
 */
export function withIconV2<TContent extends Record<string, unknown>>(content: TContent): TContent & { icon_v2: Icon | null } {
  const entries: [string, unknown][] = [];
  for (const [key, value] of Object.entries(content)) {
    if (key === 'icon_v2') continue;
    entries.push([key, value]);
    if (key === 'icon') entries.push(['icon_v2', normaliseIcon(value)]);
  }
  if (!Object.hasOwn(content, 'icon')) entries.push(['icon_v2', null]);
  // fromEntries defines own properties: no key can reach a prototype.
  return Object.fromEntries(entries) as TContent & { icon_v2: Icon | null };
}

const iconV2Field = v.pipe(
  v.nullable(Icon),
  v.metadata({ readOnly: true, description: 'The icon normalised to an Icon object, or null when there is no icon.' }),
);

/** A template schema with `icon_v2` inserted after `icon`: describes (and checks) the echo. */
function echoSchema<const TEntries extends v.ObjectEntries>(schema: v.StrictObjectSchema<TEntries, undefined>) {
  const entries: v.ObjectEntries = {};
  for (const [key, entry] of Object.entries(schema.entries)) {
    entries[key] = entry;
    if (key === 'icon') entries.icon_v2 = iconV2Field;
  }
  return strict(entries) as unknown as v.StrictObjectSchema<TEntries & { icon_v2: typeof iconV2Field }, undefined>;
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
