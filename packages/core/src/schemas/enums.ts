/** The enumerations of the contract (docs/contract/templates.md#enumerations). */
import * as v from 'valibot';

export const ActivityState = v.picklist(['IDLE', 'ONGOING']);

export const Color = v.picklist([
  'red',
  'orange',
  'yellow',
  'green',
  'mint',
  'teal',
  'cyan',
  'blue',
  'indigo',
  'purple',
  'pink',
  'brown',
  'gray',
  'gray2',
  'gray3',
  'gray4',
  'gray5',
  'gray6',
]);

export const ColorRendering = v.picklist(['flat', 'gradient']);

export const ColumnId = v.picklist(['left', 'right']);

export const RenderingMode = v.picklist(['monochrome', 'hierarchical', 'palette', 'multicolor']);

export const SegmentDisplay = v.picklist(['split', 'layered']);

export const TrackFill = v.picklist(['solid', 'hatched']);

/** `Value.formatter`. */
export const ValueFormatter = v.picklist(['time_since', 'time_until']);

export type ActivityState = v.InferOutput<typeof ActivityState>;
export type Color = v.InferOutput<typeof Color>;
export type ColorRendering = v.InferOutput<typeof ColorRendering>;
export type ColumnId = v.InferOutput<typeof ColumnId>;
export type RenderingMode = v.InferOutput<typeof RenderingMode>;
export type SegmentDisplay = v.InferOutput<typeof SegmentDisplay>;
export type TrackFill = v.InferOutput<typeof TrackFill>;
export type ValueFormatter = v.InferOutput<typeof ValueFormatter>;
