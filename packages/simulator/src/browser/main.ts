/**
 * The simulator page: a phone's view of what `/device/stream` pushes. Widgets are drawn per
 * template, activities with their phase, switchboard tiles take presses.
 */
import type { SseMessage } from '@tilecast/client/sse';
import type { PublishedAction, TileTimings, TileView } from '../tile-state.js';
import { renderActivity, type ActivityPush, type ShownActivity } from './activities.js';
import { color, duration, h, iconElement } from './dom.js';
import { runDeviceStream } from './stream.js';
import { TileBoard, widgetKey } from './tiles.js';
import { renderTemplate } from './widgets.js';

interface WidgetPush {
  owner: string;
  slug: string;
  content: any; // validated widget content; renderers read it per template
  stale_after: number | null;
  updated_at: string;
  privacy: 'visible' | 'hidden_when_locked';
}

interface ShownWidget {
  push: WidgetPush;
  stale: boolean;
}

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const ui = {
  form: byId<HTMLFormElement>('connect'),
  token: byId<HTMLInputElement>('token'),
  status: byId<HTMLElement>('status'),
  surface: byId<HTMLSelectElement>('surface'),
  size: byId<HTMLSelectElement>('size'),
  locked: byId<HTMLInputElement>('locked'),
  widgets: byId<HTMLElement>('widgets'),
  activities: byId<HTMLElement>('activities'),
  log: byId<HTMLOListElement>('log'),
};

const widgets = new Map<string, ShownWidget>();
const activities = new Map<string, ShownActivity>();
const cards = new Map<string, Element>();
let connection: AbortController | null = null;

const board = new TileBoard({
  timings: timingsFromQuery(new URLSearchParams(location.search)),
  token: () => ui.token.value.trim(),
  view: () => ({ surface: ui.surface.value as TileView['surface'], size: ui.size.value as TileView['size'], locked: ui.locked.checked }),
  changed: (key) => drawWidget(key),
  log,
});

/** `?toggleWaitMs=3000&noResponseMs=…`: shorter tile timings for demos and the browser test. */
function timingsFromQuery(query: URLSearchParams): Partial<TileTimings> {
  const timings: Partial<TileTimings> = {};
  for (const name of ['toggleWaitMs', 'noResponseMs', 'buttonWaitMs', 'sentExtraMs', 'refusalPauseMs'] as const) {
    const value = Number(query.get(name));
    if (query.has(name) && Number.isSafeInteger(value) && value > 0) timings[name] = value;
  }
  return timings;
}

function log(line: string): void {
  ui.log.prepend(h('li', {}, h('time', {}, new Date().toLocaleTimeString()), ' ', line));
  while (ui.log.children.length > 50) ui.log.lastElementChild!.remove();
}

function onMessage(message: SseMessage): void {
  try {
    const data = JSON.parse(message.data);
    if (message.event === 'widget') onWidget(data as WidgetPush);
    else if (message.event === 'activity') onActivity(data as ActivityPush);
  } catch (error) {
    log(`unreadable ${message.event} event: ${String(error)}`);
  }
}

function onWidget(push: WidgetPush): void {
  const key = widgetKey(push);
  widgets.set(key, { push, stale: isStale(push, Date.now()) });
  if (push.content?.template === 'switchboard') board.sync(push, push.content.actions as PublishedAction[]);
  log(`widget ${push.slug} (${push.content?.template}) updated`);
  drawWidget(key);
}

function onActivity(push: ActivityPush): void {
  const key = widgetKey(push);
  const dismissAt = push.phase === 'end' ? Date.now() + push.dismissal_delay_s * 1000 : null;
  activities.set(key, { push, dismissAt });
  log(`activity ${push.slug}: ${push.phase} (${push.state})`);
  drawActivity(key);
}

function isStale(push: WidgetPush, now: number): boolean {
  return push.stale_after !== null && now - Date.parse(push.updated_at) > push.stale_after * 1000;
}

/** Replaces the widget's card in place (or appends it), so cards keep their order. */
function drawWidget(key: string): void {
  const widget = widgets.get(key);
  if (widget === undefined) return;
  place(ui.widgets, key, renderWidget(widget, Date.now()));
}

function drawActivity(key: string): void {
  const activity = activities.get(key);
  if (activity === undefined) return;
  if (activity.dismissAt !== null && activity.dismissAt <= Date.now()) {
    activities.delete(key);
    cards.get(`activity:${key}`)?.remove();
    cards.delete(`activity:${key}`);
    ui.activities.classList.toggle('empty', activities.size === 0);
    return;
  }
  place(ui.activities, `activity:${key}`, renderActivity(activity, Date.now()));
}

function place(container: HTMLElement, key: string, card: Element): void {
  const old = cards.get(key);
  if (old?.isConnected) old.replaceWith(card);
  else container.append(card);
  cards.set(key, card);
  container.classList.remove('empty');
}

function renderWidget(widget: ShownWidget, now: number): HTMLElement {
  const { push } = widget;
  const content = push.content ?? {};
  const hidden = push.privacy === 'hidden_when_locked' && ui.locked.checked;
  const accent = content.accent ? color(content.accent) : null;
  return h(
    'article',
    {
      class: `widget${widget.stale ? ' stale' : ''}`,
      'data-widget': widgetKey(push),
      'data-template': content.template,
      'data-stale': String(widget.stale),
      style: accent ? `border-color:${accent}` : null,
    },
    h(
      'header',
      {},
      iconElement(content.icon),
      h('strong', {}, push.slug),
      h('span', { class: 'badge' }, content.template),
      widget.stale ? h('span', { class: 'badge stale-badge' }, 'Stale') : null,
      h('span', { class: 'sub' }, `updated ${duration(now - Date.parse(push.updated_at))} ago · ${push.owner}`),
    ),
    renderBody(push, hidden, now),
    content.tap_url ? h('footer', { class: 'sub', title: content.tap_url }, `tap opens ${content.tap_url}`) : null,
  );
}

function renderBody(push: WidgetPush, hidden: boolean, now: number): Node {
  try {
    if (push.content?.template === 'switchboard') return renderSwitchboard(push);
    if (hidden) return h('div', { class: 'hidden-content' }, 'Hidden while the phone is locked');
    return renderTemplate(push.content, now);
  } catch (error) {
    return h('p', { class: 'error' }, `cannot draw this content: ${String(error)}`);
  }
}

function renderSwitchboard(push: WidgetPush): Node {
  const c = push.content;
  const gradient = c.gradient ? `background:linear-gradient(135deg, ${color(c.gradient.from)}, ${color(c.gradient.to)})` : null;
  // The picture is not fetched (the page makes no outside requests): its alt text stands in.
  const picture = c.picture
    ? h('div', { class: 'picture', role: 'img', 'aria-label': c.picture.alt, title: c.picture.url }, `Picture: ${c.picture.alt}`)
    : null;
  return h(
    'div',
    { class: `switchboard${gradient ? ' gradient' : ''}`, style: gradient },
    c.title || c.subtitle
      ? h('div', { class: 'switchboard-head' }, c.title ? h('strong', {}, c.title) : null, c.subtitle ? h('span', { class: 'sub' }, c.subtitle) : null)
      : null,
    picture,
    board.render(push, c.actions as PublishedAction[]),
  );
}

/** Every second: countdowns, relative times, stale marks and dismissals move on. */
function tick(): void {
  const now = Date.now();
  for (const [key, widget] of widgets) {
    const stale = isStale(widget.push, now);
    const changed = stale !== widget.stale;
    widget.stale = stale;
    // Tiles are redrawn only when something about them changed, so a press never hits a replaced button.
    if (changed || widget.push.content?.template !== 'switchboard') drawWidget(key);
  }
  for (const key of [...activities.keys()]) drawActivity(key);
}

function connect(): void {
  connection?.abort();
  connection = new AbortController();
  widgets.clear();
  activities.clear();
  board.clear();
  cards.clear();
  ui.widgets.replaceChildren();
  ui.activities.replaceChildren();
  ui.widgets.classList.add('empty');
  ui.activities.classList.add('empty');
  const token = ui.token.value.trim();
  if (token === '') return setStatus('enter a device token', 'stopped');
  void runDeviceStream(token, { onMessage, onStatus: setStatus }, connection.signal);
}

function setStatus(text: string, state: string): void {
  ui.status.textContent = text;
  ui.status.dataset.state = state;
}

function redrawAll(): void {
  for (const key of widgets.keys()) drawWidget(key);
}

async function start(): Promise<void> {
  ui.form.addEventListener('submit', (event) => {
    event.preventDefault();
    connect();
  });
  for (const control of [ui.surface, ui.size, ui.locked]) control.addEventListener('change', redrawAll);
  setInterval(tick, 1000);
  const config = await fetch('/simulator-config.json')
    .then((r) => (r.ok ? r.json() : null))
    .catch(() => null);
  if (config && typeof config.deviceToken === 'string' && ui.token.value === '') ui.token.value = config.deviceToken;
  if (ui.token.value !== '') connect();
  else setStatus('enter a device token', 'stopped');
}

void start();
