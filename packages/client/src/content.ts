/**
 * Request content of every activity and widget template, written by hand so the client
 * carries no run-time (or declaration-time) dependency on the server packages.
 * `test/types.test.ts` checks them against the core's validating schemas in both
 * directions, so they cannot drift apart unnoticed.
 *
 * Unlike the service, the client requires `content.template`: it is the tag that lets
 * the compiler pick the one template whose fields apply, so a wrong field is a compile
 * error instead of a `422` at run time.
 */

export type Color =
  | 'red'
  | 'orange'
  | 'yellow'
  | 'green'
  | 'mint'
  | 'teal'
  | 'cyan'
  | 'blue'
  | 'indigo'
  | 'purple'
  | 'pink'
  | 'brown'
  | 'gray'
  | 'gray2'
  | 'gray3'
  | 'gray4'
  | 'gray5'
  | 'gray6';
export type ActivityState = 'IDLE' | 'ONGOING';
export type ColorRendering = 'flat' | 'gradient';
export type ColumnId = 'left' | 'right';
export type RenderingMode = 'monochrome' | 'hierarchical' | 'palette' | 'multicolor';
export type SegmentDisplay = 'split' | 'layered';
export type TrackFill = 'solid' | 'hatched';
export type ValueFormatter = 'time_since' | 'time_until';
/** RFC 3339 date-time with an offset, for example `2025-01-01T12:00:00Z`. */
export type Timestamp = string;

// ---- Shared building blocks -------------------------------------------------------

export interface Icon {
  name: string;
  rendering_mode?: RenderingMode | null;
  primary_color?: Color | null;
  secondary_color?: Color | null;
  tertiary_color?: Color | null;
  color_rendering?: ColorRendering | null;
}

/** An icon name (at most 64 characters), an Icon object, or null. */
export type IconValue = string | Icon | null;

export interface Value {
  value: string;
  text_color?: Color | null;
  formatter?: ValueFormatter | null;
}

export interface Column {
  header?: string | null;
  value: Value;
  footer?: string | null;
}

export interface Segment {
  value: number;
  fill_color: Color;
  track_color?: Color;
  track_fill?: TrackFill;
  label?: string | null;
}

export interface SimpleProgressBar {
  style?: 'simple';
  value: number;
  color?: Color;
}

export interface SegmentedProgressBar {
  style?: 'segmented';
  value: number;
  segments: Segment[];
  display?: SegmentDisplay;
}

export type ProgressBar = SimpleProgressBar | SegmentedProgressBar;

// ---- Activity templates -----------------------------------------------------------

interface ActivityCommon<TName extends string> {
  template: TName;
  tap_url?: string | null;
  icon?: IconValue;
}

export interface ProgressActivityContent extends ActivityCommon<'progress'> {
  progress: ProgressBar;
  header_left?: Value | null;
  header_right?: Value | null;
  footer_left?: Value | null;
  footer_right?: Value | null;
  compact_value?: Value | null;
}

export interface MonitorActivityContent extends ActivityCommon<'monitor'> {
  left_column?: Column | null;
  right_column?: Column | null;
  primary_column?: ColumnId;
}

/** The legacy original simple progress layout. */
export interface GenericActivityContent extends ActivityCommon<'generic'> {
  progress: number;
  remaining_time?: number | null;
  state?: string | null;
}

export interface ActivityContents {
  progress: ProgressActivityContent;
  monitor: MonitorActivityContent;
  generic: GenericActivityContent;
}
export type ActivityTemplateName = keyof ActivityContents;
export type ActivityContent<T extends ActivityTemplateName = ActivityTemplateName> = ActivityContents[T];

// ---- Widget templates -------------------------------------------------------------

interface WidgetCommon<TName extends string> {
  template: TName;
  icon?: IconValue;
  accent?: Color | null;
  tap_url?: string | null;
}

/** At least one of `value` and `state` (checked by the service). */
export interface StatusWidgetContent extends WidgetCommon<'status'> {
  value?: Value | null;
  state?: Value | null;
}

export interface ProgressWidgetContent extends WidgetCommon<'progress'> {
  progress: ProgressBar;
  state?: Value | null;
  end_date?: Timestamp | null;
}

export interface GaugeWidgetContent extends WidgetCommon<'gauge'> {
  value: number;
  min_value?: number | null;
  max_value?: number | null;
  unit?: string | null;
  label?: string | null;
  color?: Color | null;
}

export interface BatteryDevice {
  name: string;
  /** Percentage, 0 to 100. */
  level: number;
  charging?: boolean | null;
  icon?: string | null;
}

export interface BatteryWidgetContent extends WidgetCommon<'battery'> {
  devices: BatteryDevice[];
}

export interface BudgetTotal {
  spent: number;
  /** null: spending only. */
  budget?: number | null;
}

export interface BudgetCategory {
  label: string;
  spent: number;
  budget?: number | null;
  icon?: IconValue;
  color?: Color | null;
}

export interface BudgetWidgetContent extends WidgetCommon<'budget'> {
  total: BudgetTotal;
  categories?: BudgetCategory[] | null;
  /** ISO 4217 code, for example `EUR`. */
  currency: string;
  display?: 'remaining' | 'spent' | null;
  subtitle?: Value | null;
}

export interface TrendWidgetContent extends WidgetCommon<'trend'> {
  value: number;
  /** 2 to 48 points, oldest first. */
  points: number[];
  unit?: string | null;
  state?: Value | null;
  color?: Color | null;
}

export interface CountdownWidgetContent extends WidgetCommon<'countdown'> {
  target: Timestamp;
  subtitle?: Value | null;
  expired_text?: string | null;
}

export interface ListRow {
  label: string;
  value: Value;
  icon?: string | null;
}

export interface ListWidgetContent extends WidgetCommon<'list'> {
  rows: ListRow[];
}

export interface PriceEntry {
  start: Timestamp;
  price: number;
  level?: 'low' | 'medium' | 'high' | null;
}

export interface PricesWidgetContent extends WidgetCommon<'prices'> {
  /** Starts strictly increasing. */
  entries: PriceEntry[];
  unit?: string | null;
}

export interface EnergySource {
  /** null: solar. */
  name?: string | null;
  power: number;
  today?: number | null;
  icon?: IconValue;
  color?: Color | null;
}

/** At least one source or one of grid, battery and home (checked by the service). */
export interface EnergyWidgetContent extends WidgetCommon<'energy'> {
  sources?: EnergySource[] | null;
  grid?: { power: number; today?: number | null } | null;
  battery?: { power: number; level?: number | null } | null;
  home?: { power: number; today?: number | null } | null;
}

export interface StateWords {
  on?: string | null;
  off?: string | null;
  turning_on?: string | null;
  turning_off?: string | null;
  no_response?: string | null;
  sent?: string | null;
}

interface SwitchboardActionCommon {
  /** `^[A-Za-z0-9_-]{1,32}$`, unique within the widget: delivered in events when pressed. */
  id: string;
  label: string;
  icon?: string | null;
  color?: Color | null;
  state_words?: StateWords | null;
}

export interface SwitchboardButton extends SwitchboardActionCommon {
  kind?: 'button' | null;
  /** Highlight, set only by the publisher. */
  active?: boolean | null;
  /** Buttons have no on/off state: a compile error rather than a `422`. */
  on?: never;
}

export interface SwitchboardToggle extends SwitchboardActionCommon {
  kind: 'toggle';
  /** Whether the thing is on now: the publisher's truth, never the device's guess. */
  on: boolean;
  /** Toggles show their state with `on`, never a highlight. */
  active?: never;
}

export type SwitchboardAction = SwitchboardButton | SwitchboardToggle;

export interface SwitchboardWidgetContent extends WidgetCommon<'switchboard'> {
  /** 1 to 8 actions. */
  actions: SwitchboardAction[];
  title?: string | null;
  subtitle?: string | null;
  gradient?: { from: Color; to: Color } | null;
  picture?: { url: string; alt: string } | null;
}

export interface WidgetContents {
  status: StatusWidgetContent;
  progress: ProgressWidgetContent;
  gauge: GaugeWidgetContent;
  battery: BatteryWidgetContent;
  budget: BudgetWidgetContent;
  trend: TrendWidgetContent;
  countdown: CountdownWidgetContent;
  list: ListWidgetContent;
  prices: PricesWidgetContent;
  energy: EnergyWidgetContent;
  switchboard: SwitchboardWidgetContent;
}
export type WidgetTemplateName = keyof WidgetContents;
export type WidgetContent<T extends WidgetTemplateName = WidgetTemplateName> = WidgetContents[T];

// ---- Echoes -----------------------------------------------------------------------

/**
 * What the service echoes for content sent as `T`: defaults applied and every optional
 * field present, `null` where unset. Fields with a non-null default are typed `X | null`
 * here (a safe superset): the client does not repeat the service's defaults. Fields
 * typed `never` (a button's `on`) exist only to refuse input and are not echoed.
 */
export type Echoed<T> = T extends readonly (infer TItem)[]
  ? Echoed<TItem>[]
  : T extends object
    ? {
        [K in keyof T as [Exclude<T[K], undefined>] extends [never] ? never : K]-?: K extends 'template' | 'style'
          ? Exclude<T[K], undefined>
          : EchoedField<T[K]>;
      }
    : T;

type EchoedField<T> = undefined extends T ? Echoed<Exclude<T, undefined>> | null : Echoed<T>;

/** The activity echo also carries the read-only `icon_v2`: the icon as an Icon object. */
export type ActivityContentEcho<T extends ActivityTemplateName = ActivityTemplateName> = T extends ActivityTemplateName
  ? Echoed<ActivityContents[T]> & { icon_v2: Echoed<Icon> | null }
  : never;

export type WidgetContentEcho<T extends WidgetTemplateName = WidgetTemplateName> = T extends WidgetTemplateName ? Echoed<WidgetContents[T]> : never;
