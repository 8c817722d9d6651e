/** The shared building blocks Value (docs/contract/templates.md#block-value) and ProgressBar (docs/contract/templates.md#block-progress-bar), drawn for widgets and activities. */
import { color, duration, h, s } from './dom.js';

export interface Value {
  value: string;
  text_color?: string | null;
  formatter?: 'time_since' | 'time_until' | null;
}

export interface Segment {
  value: number;
  fill_color: string;
  track_color?: string;
  track_fill?: 'solid' | 'hatched';
  label?: string | null;
}

export interface ProgressBar {
  style?: 'simple' | 'segmented';
  value: number;
  color?: string;
  segments?: Segment[];
  display?: 'split' | 'layered';
}

/** A Value; with a formatter its text is a timestamp, shown as the time since or until it. */
export function valueElement(value: Value | null | undefined, className = 'value'): HTMLElement | null {
  if (!value) return null;
  return h('span', { class: className, style: value.text_color ? `color:${color(value.text_color)}` : null }, formatValue(value, Date.now()));
}

function formatValue(value: Value, now: number): string {
  const instant = Date.parse(value.value);
  if (!value.formatter || Number.isNaN(instant)) return value.value;
  return value.formatter === 'time_since' ? `${duration(now - instant)} ago` : `in ${duration(instant - now)}`;
}

export function progressBar(bar: ProgressBar): HTMLElement {
  if (bar.segments && bar.segments.length > 0) return segmentedBar(bar.segments, bar.display ?? 'split');
  return h('div', { class: 'bar', role: 'progressbar', 'aria-valuenow': Math.round(bar.value * 100) }, fillOf(bar.value, color(bar.color)));
}

function fillOf(value: number, tint: string): HTMLElement {
  return h('span', { class: 'bar-fill', style: `width:${Math.round(value * 100)}%;background:${tint}` });
}

/** `split`: segments side by side, each its own track; `layered`: drawn over one another on one track. */
function segmentedBar(segments: Segment[], display: 'split' | 'layered'): HTMLElement {
  const tracks = segments.map((segment) =>
    h(
      'div',
      {
        class: `bar segment${segment.track_fill === 'hatched' ? ' hatched' : ''}`,
        style: `background-color:${color(segment.track_color, color('gray5'))}`,
        title: segment.label ?? null,
      },
      fillOf(segment.value, color(segment.fill_color)),
    ),
  );
  const labels = segments.some((segment) => segment.label)
    ? h('div', { class: 'segment-labels' }, ...segments.map((segment) => h('span', {}, segment.label ?? '')))
    : null;
  return h('div', { class: `segments ${display}` }, h('div', { class: 'segment-tracks' }, ...tracks), labels);
}

/** A ring from 0 to 100 %, for battery levels. */
export function ring(level: number, tint: string, label: string): SVGElement {
  const radius = 20;
  const circumference = 2 * Math.PI * radius;
  const filled = (Math.max(0, Math.min(100, level)) / 100) * circumference;
  return s(
    'svg',
    { viewBox: '0 0 50 50', class: 'ring', role: 'img', 'aria-label': label },
    s('circle', { cx: 25, cy: 25, r: radius, class: 'ring-track' }),
    s('circle', {
      cx: 25,
      cy: 25,
      r: radius,
      class: 'ring-fill',
      stroke: tint,
      'stroke-dasharray': `${filled} ${circumference}`,
      transform: 'rotate(-90 25 25)',
    }),
    s('text', { x: 25, y: 29, 'text-anchor': 'middle', class: 'ring-text' }, `${Math.round(level)}`),
  );
}
