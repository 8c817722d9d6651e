/** Small DOM helpers: elements are built with text nodes only, so no pushed content is parsed as HTML. */

type Attributes = Record<string, string | number | boolean | null | undefined>;
export type Child = Node | string | number | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  return fill(document.createElement(tag), attributes, children);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function s(tag: string, attributes: Attributes = {}, ...children: Child[]): SVGElement {
  return fill(document.createElementNS(SVG_NS, tag) as SVGElement, attributes, children);
}

function fill<E extends Element>(element: E, attributes: Attributes, children: Child[]): E {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(typeof child === 'number' ? String(child) : child);
  }
  return element;
}

/** The Color names (docs/contract/templates.md#enum-color), as the iOS system colors they stand for. */
const COLORS: Record<string, string> = {
  red: '#ff3b30',
  orange: '#ff9500',
  yellow: '#ffcc00',
  green: '#34c759',
  mint: '#00c7be',
  teal: '#30b0c7',
  cyan: '#32ade6',
  blue: '#007aff',
  indigo: '#5856d6',
  purple: '#af52de',
  pink: '#ff2d55',
  brown: '#a2845e',
  gray: '#8e8e93',
  gray2: '#aeaeb2',
  gray3: '#c7c7cc',
  gray4: '#d1d1d6',
  gray5: '#e5e5ea',
  gray6: '#f2f2f7',
};

export function color(name: unknown, fallback = COLORS.blue!): string {
  return typeof name === 'string' && name in COLORS ? COLORS[name]! : fallback;
}

/**
 * Icons are SF Symbol names on a phone. The page has no symbol font, so it shows a glyph
 * the default fonts have for common names, else the name's first letter; the full name
 * is the tooltip.
 */
const GLYPHS: [RegExp, string][] = [
  [/bolt|power|plug/, '⚡'],
  [/sun|solar/, '☀'],
  [/snow|cool|ac\b/, '❄'],
  [/flame|fire|heat|boiler/, '♨'],
  [/gear|settings/, '⚙'],
  [/house|home/, '⌂'],
  [/star/, '★'],
  [/heart/, '♥'],
  [/check/, '✓'],
  [/phone/, '☎'],
  [/envelope|mail/, '✉'],
  [/music|note|bell/, '♫'],
  [/drop|water/, '☂'],
  [/car/, '⛍'],
  [/light|lamp|bulb/, '☼'],
  [/clock|timer|alarm/, '⌚'],
  [/lock/, '⚿'],
  [/battery/, '▮'],
  [/cloud/, '☁'],
];

export function iconName(icon: unknown): string | null {
  if (typeof icon === 'string' && icon !== '') return icon;
  if (icon !== null && typeof icon === 'object' && typeof (icon as { name?: unknown }).name === 'string') return (icon as { name: string }).name;
  return null;
}

export function iconElement(icon: unknown, className = 'icon'): HTMLElement | null {
  const name = iconName(icon);
  if (name === null) return null;
  const glyph = GLYPHS.find(([pattern]) => pattern.test(name.toLowerCase()))?.[1] ?? name.charAt(0).toUpperCase();
  const tint = typeof icon === 'object' && icon !== null ? (icon as { primary_color?: unknown }).primary_color : null;
  return h('span', { class: className, title: name, 'data-icon': name, style: tint ? `color:${color(tint)}` : null }, glyph);
}

/** `12 s`, `5 min`, `3 h`, `2 d`: coarse on purpose, like a widget's relative date. */
export function duration(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ${Math.floor((seconds % 3600) / 60)} min`;
  return `${Math.floor(seconds / 86_400)} d`;
}

export function formatNumber(value: number, digits = 1): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(digits);
}

export function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
