/**
 * One renderer per widget template (docs/contract/templates.md#widget-templates), except `switchboard`, whose
 * tiles carry press state and are drawn by tiles.ts. Content was validated by the service,
 * so each renderer reads its template's fields as specified.
 */
import { progressBar, ring, valueElement, type ProgressBar, type Value } from './blocks.js';
import { clamp, color, duration, formatNumber, h, iconElement, s } from './dom.js';

// Pushed content is validated JSON; each renderer names the fields it reads.
type Content = any;

export const TEMPLATE_RENDERERS: Record<string, (content: Content, now: number, accent?: string | null) => Node> = {
  status: (c) => h('div', { class: 'status' }, valueElement(c.value, 'big'), valueElement(c.state, 'sub')),
  progress: renderProgress,
  gauge: renderGauge,
  battery: renderBattery,
  budget: renderBudget,
  trend: renderTrend,
  countdown: renderCountdown,
  list: renderList,
  prices: renderPrices,
  energy: renderEnergy,
};

function renderProgress(c: { progress: ProgressBar; state?: Value | null; end_date?: string | null }, now: number): Node {
  const end = c.end_date ? Date.parse(c.end_date) : NaN;
  const left = Number.isNaN(end) ? null : h('span', { class: 'sub' }, end > now ? `${duration(end - now)} left` : 'done');
  return h('div', { class: 'progress' }, progressBar(c.progress), h('div', { class: 'row' }, valueElement(c.state, 'sub'), left));
}

/** A 270° dial; the value is clamped for display only, as the stored value may lie outside min..max. */
function renderGauge(c: { value: number; min_value?: number; max_value?: number; unit?: string | null; label?: string | null; color?: string | null }): Node {
  const min = c.min_value ?? 0;
  const max = c.max_value ?? 100;
  const ratio = clamp((c.value - min) / (max - min), 0, 1);
  const stroke = c.color ? color(c.color) : 'url(#gauge-cool-warm)';
  const arc = (to: number) => describeArc(50, 50, 38, -135, -135 + 270 * to);
  return h(
    'div',
    { class: 'gauge' },
    s(
      'svg',
      { viewBox: '0 0 100 90', role: 'img', 'aria-label': `${c.value}${c.unit ?? ''}` },
      s(
        'defs',
        {},
        s(
          'linearGradient',
          { id: 'gauge-cool-warm' },
          s('stop', { offset: '0', 'stop-color': color('cyan') }),
          s('stop', { offset: '0.5', 'stop-color': color('yellow') }),
          s('stop', { offset: '1', 'stop-color': color('red') }),
        ),
      ),
      s('path', { d: arc(1), class: 'gauge-track' }),
      ratio > 0 ? s('path', { d: arc(ratio), class: 'gauge-fill', stroke }) : null,
      s('text', { x: 50, y: 55, 'text-anchor': 'middle', class: 'gauge-value' }, `${formatNumber(c.value)}${c.unit ?? ''}`),
      s('text', { x: 22, y: 86, 'text-anchor': 'middle', class: 'gauge-bound' }, formatNumber(min)),
      s('text', { x: 78, y: 86, 'text-anchor': 'middle', class: 'gauge-bound' }, formatNumber(max)),
    ),
    c.label ? h('div', { class: 'sub' }, c.label) : null,
  );
}

function describeArc(cx: number, cy: number, r: number, fromDeg: number, toDeg: number): string {
  const point = (deg: number) => {
    const rad = ((deg - 90) * Math.PI) / 180;
    return `${(cx + r * Math.cos(rad)).toFixed(2)} ${(cy + r * Math.sin(rad)).toFixed(2)}`;
  };
  const large = toDeg - fromDeg > 180 ? 1 : 0;
  return `M ${point(fromDeg)} A ${r} ${r} 0 ${large} 1 ${point(toDeg)}`;
}

function renderBattery(c: { devices: { name: string; level: number; charging?: boolean; icon?: string | null }[] }): Node {
  return h(
    'div',
    { class: 'battery' },
    ...c.devices.map((device) => {
      const tint = device.level <= 20 ? color('red') : device.charging ? color('green') : color('gray');
      return h(
        'div',
        { class: 'battery-device' },
        ring(device.level, tint, `${device.name} ${device.level}%${device.charging ? ', charging' : ''}`),
        h('span', { class: 'sub' }, iconElement(device.icon), device.charging ? '⚡' : null, device.name),
      );
    }),
  );
}

function renderBudget(c: {
  total: { spent: number; budget?: number | null };
  categories?: { label: string; spent: number; budget?: number | null; icon?: unknown; color?: string | null }[] | null;
  currency: string;
  display?: 'remaining' | 'spent';
  subtitle?: Value | null;
}): Node {
  const money = (amount: number) => formatMoney(amount, c.currency);
  const { spent, budget } = c.total;
  const headline = budget && c.display !== 'spent' ? `${money(budget - spent)} left` : `${money(spent)} spent`;
  return h(
    'div',
    { class: 'budget' },
    h('div', { class: 'big' }, headline),
    budget
      ? h(
          'div',
          { class: 'bar' },
          h('span', {
            class: 'bar-fill',
            style: `width:${Math.round(clamp(spent / budget, 0, 1) * 100)}%;background:${spent > budget ? color('red') : color('green')}`,
          }),
        )
      : null,
    valueElement(c.subtitle, 'sub'),
    ...(c.categories ?? []).map((category) =>
      h(
        'div',
        { class: 'row' },
        h('span', {}, iconElement(category.icon), category.label),
        h(
          'span',
          { class: 'sub', style: category.color ? `color:${color(category.color)}` : null },
          category.budget ? `${money(category.spent)} / ${money(category.budget)}` : money(category.spent),
        ),
      ),
    ),
  );
}

function formatMoney(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: 0 }).format(amount);
  } catch {
    return `${formatNumber(amount)} ${currency}`;
  }
}

function renderTrend(
  c: { value: number; points: number[]; unit?: string | null; state?: Value | null; color?: string | null },
  _now: number,
  accent?: string | null,
): Node {
  const min = Math.min(...c.points);
  const span = Math.max(...c.points) - min || 1;
  const step = 100 / (c.points.length - 1);
  const points = c.points.map((p, i) => `${(i * step).toFixed(1)},${(36 - ((p - min) / span) * 32).toFixed(1)}`).join(' ');
  return h(
    'div',
    { class: 'trend' },
    h('div', { class: 'big' }, `${formatNumber(c.value)}${c.unit ?? ''}`),
    s(
      'svg',
      { viewBox: '0 0 100 40', class: 'spark', preserveAspectRatio: 'none', role: 'img', 'aria-label': 'trend' },
      s('polyline', { points, stroke: color(c.color ?? accent), fill: 'none' }),
    ),
    valueElement(c.state, 'sub'),
  );
}

function renderCountdown(c: { target: string; subtitle?: Value | null; expired_text?: string | null }, now: number): Node {
  const remaining = Date.parse(c.target) - now;
  const text = remaining > 0 ? duration(remaining) : (c.expired_text ?? `${duration(remaining)} ago`);
  return h('div', { class: 'countdown' }, h('div', { class: 'big' }, text), valueElement(c.subtitle, 'sub'));
}

function renderList(c: { rows: { label: string; value: Value; icon?: string | null }[] }): Node {
  return h(
    'ul',
    { class: 'list' },
    ...c.rows.map((row) => h('li', { class: 'row' }, h('span', {}, iconElement(row.icon), row.label), valueElement(row.value))),
  );
}

const LEVEL_COLORS: Record<string, string> = { low: 'green', medium: 'yellow', high: 'red' };

/** Bars per period, negative prices below the axis; the current period is outlined. */
function renderPrices(c: { entries: { start: string; price: number; level?: string | null }[]; unit?: string | null }, now: number): Node {
  const prices = c.entries.map((entry) => entry.price);
  const top = Math.max(0, ...prices);
  const bottom = Math.min(0, ...prices);
  const range = top - bottom || 1;
  const width = 100 / c.entries.length;
  const axis = (top / range) * 40;
  const current = currentEntry(c.entries, now);
  const bars = c.entries.map((entry, i) => {
    const height = (Math.abs(entry.price) / range) * 40;
    const y = entry.price >= 0 ? axis - height : axis;
    const tint = color(LEVEL_COLORS[entry.level ?? ''] ?? 'blue');
    return s('rect', {
      x: (i * width + width * 0.1).toFixed(2),
      y: y.toFixed(2),
      width: (width * 0.8).toFixed(2),
      height: Math.max(height, 0.5).toFixed(2),
      fill: tint,
      class: i === current ? 'now' : null,
    });
  });
  const shown = current >= 0 ? c.entries[current]! : c.entries[0]!;
  return h(
    'div',
    { class: 'prices' },
    h('div', { class: 'big' }, `${formatNumber(shown.price, 2)}${c.unit ? ` ${c.unit}` : ''}`),
    s(
      'svg',
      { viewBox: '0 0 100 42', class: 'chart', preserveAspectRatio: 'none', role: 'img', 'aria-label': 'prices' },
      ...bars,
      s('line', { x1: 0, x2: 100, y1: axis, y2: axis, class: 'axis' }),
    ),
  );
}

function currentEntry(entries: { start: string }[], now: number): number {
  let found = -1;
  entries.forEach((entry, i) => {
    if (Date.parse(entry.start) <= now) found = i;
  });
  return found;
}

interface PowerNode {
  name?: string | null;
  power: number;
  today?: number | null;
  level?: number | null;
  icon?: unknown;
  color?: string | null;
}

/** Sources, grid, battery and home as nodes with their power and direction of flow. */
function renderEnergy(c: { sources?: PowerNode[] | null; grid?: PowerNode | null; battery?: PowerNode | null; home?: PowerNode | null }): Node {
  const nodes: HTMLElement[] = (c.sources ?? []).map((source) =>
    energyNode(source.name ?? 'Solar', source, source.icon ?? 'sun.max', source.power > 0 ? 'producing' : 'idle', source.color),
  );
  if (c.grid) nodes.push(energyNode('Grid', c.grid, 'bolt', c.grid.power > 0 ? 'importing' : c.grid.power < 0 ? 'exporting' : 'idle'));
  if (c.battery)
    nodes.push(
      energyNode(
        `Battery${c.battery.level != null ? ` ${Math.round(c.battery.level)}%` : ''}`,
        c.battery,
        'battery',
        c.battery.power > 0 ? 'charging' : c.battery.power < 0 ? 'discharging' : 'idle',
      ),
    );
  if (c.home) nodes.push(energyNode('Home', c.home, 'house', 'using'));
  return h('div', { class: 'energy' }, ...nodes);
}

function energyNode(name: string, node: PowerNode, icon: unknown, flow: string, tint?: string | null): HTMLElement {
  return h(
    'div',
    { class: `energy-node ${flow}`, style: tint ? `border-color:${color(tint)}` : null },
    iconElement(icon),
    h('strong', {}, name),
    h('span', {}, formatWatts(Math.abs(node.power))),
    h('span', { class: 'sub' }, flow),
    node.today != null ? h('span', { class: 'sub' }, `${formatNumber(node.today)} kWh today`) : null,
  );
}

function formatWatts(watts: number): string {
  return watts >= 1000 ? `${formatNumber(watts / 1000, 2)} kW` : `${Math.round(watts)} W`;
}

export function renderTemplate(content: Content, now: number): Node {
  const renderer = TEMPLATE_RENDERERS[content?.template];
  if (renderer === undefined) return h('pre', { class: 'raw' }, JSON.stringify(content, null, 2));
  return renderer(content, now, content.accent);
}
