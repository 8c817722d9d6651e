/**
 * Shared building blocks (Icon, Value, Column, Segment, ProgressBar: docs/contract/templates.md#block-icon,
 * docs/contract/templates.md#block-value, docs/contract/templates.md#block-column, docs/contract/templates.md#block-segment,
 * docs/contract/templates.md#block-progress-bar) and the common `icon` / `tap_url` fields (docs/contract/templates.md#activity-common-fields).
 *
 * These follow the contract's field tables exactly, in activities and widgets alike
 * (one schema, one OpenAPI component): a field documented "or null" accepts null, a field
 * with a non-null default (`ProgressBar.color`, `Segment.track_color`, ...) refuses null.
 * The widget rule "an explicit null on an optional field means absent" applies to the
 * fields the widget templates declare themselves (widgets/*.ts).
 */
import * as v from 'valibot';
import { discriminated, tagged } from './discriminated.js';
import { Color, ColorRendering, RenderingMode, SegmentDisplay, TrackFill, ValueFormatter } from './enums.js';
import { MSG } from './messages.js';
import { fraction, isPlainObject, orNull, strict, text, uri } from './primitives.js';
import { list } from './list.js';

export const Icon = strict({
  name: text(64),
  rendering_mode: orNull(RenderingMode),
  primary_color: orNull(Color),
  secondary_color: orNull(Color),
  tertiary_color: orNull(Color),
  color_rendering: orNull(ColorRendering),
});

const iconBranches = { name: text(64), icon: Icon, none: v.null() };
// Reached only for a value of none of the three shapes: one `icon_type` error for it.
const notAnIcon = v.string(MSG.icon);

/** `string (≤ 64) | Icon | null`, picked by the value's JSON type. */
export const IconValue = discriminated(undefined, iconBranches, (input) => {
  if (typeof input === 'string') return iconBranches.name;
  if (input === null) return iconBranches.none;
  if (isPlainObject(input)) return iconBranches.icon;
  return notAnIcon;
});

/** The `icon` field: optional, echoed as `null` when unset. */
export const iconField = v.optional(IconValue, null);

/** The `tap_url` field: URI of 1 to 256 characters, or null. */
export const tapUrlField = orNull(uri());

export const Value = strict({
  value: text(128),
  text_color: orNull(Color),
  formatter: orNull(ValueFormatter),
});

export const Column = strict({
  header: orNull(text(64)),
  value: Value,
  footer: orNull(text(64)),
});

export const Segment = strict({
  value: fraction(),
  fill_color: Color,
  track_color: v.optional(Color, 'gray'),
  track_fill: v.optional(TrackFill, 'solid'),
  label: orNull(text(64)),
});

export const SimpleProgressBar = strict({
  style: v.optional(v.literal('simple'), 'simple'),
  value: fraction(),
  color: v.optional(Color, 'blue'),
});

export const SegmentedProgressBar = strict({
  style: v.optional(v.literal('segmented'), 'segmented'),
  value: fraction(),
  segments: list(Segment, { min: 1, max: 4 }),
  display: v.optional(SegmentDisplay, 'split'),
});

/** Discriminated by `style`; without `style` it is `segmented` when it has `segments`, else `simple`. */
export const ProgressBar = tagged(
  'style',
  { simple: SimpleProgressBar, segmented: SegmentedProgressBar },
  { byDefault: (input) => (Object.hasOwn(input, 'segments') ? 'segmented' : 'simple') },
);

export type IconInput = v.InferInput<typeof Icon>;
export type Icon = v.InferOutput<typeof Icon>;
export type ValueInput = v.InferInput<typeof Value>;
export type Value = v.InferOutput<typeof Value>;
export type ColumnInput = v.InferInput<typeof Column>;
export type Column = v.InferOutput<typeof Column>;
export type SegmentInput = v.InferInput<typeof Segment>;
export type Segment = v.InferOutput<typeof Segment>;
export type ProgressBarInput = v.InferInput<typeof ProgressBar>;
export type ProgressBar = v.InferOutput<typeof ProgressBar>;
