/**
 * The switchboard tiles: one tile state machine (tile-state.ts) per action, its timers
 * scheduled from `nextDeadline`, presses posted to `/device/presses`.
 */
import {
  createTile,
  displayTile,
  nextDeadline,
  pressTile,
  reduceTile,
  type PublishedAction,
  type TileEvent,
  type TileState,
  type TileTimings,
  type TileView,
} from '../tile-state.js';
import { color, h, iconElement } from './dom.js';
import { sendPress } from './presses.js';

export interface WidgetRef {
  owner: string;
  slug: string;
  privacy: 'visible' | 'hidden_when_locked';
}

export interface TileBoardOptions {
  timings: Partial<TileTimings>;
  token(): string;
  /** Where the simulated phone shows the widgets; privacy comes from each widget. */
  view(): Omit<TileView, 'privacy'>;
  /** A tile of this widget changed: draw the widget again. */
  changed(widgetKey: string): void;
  log(line: string): void;
}

export class TileBoard {
  private readonly tiles = new Map<string, TileState>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(private readonly options: TileBoardOptions) {}

  /** A widget push: every action is an update of its tile; tiles of removed actions go. */
  sync(widget: WidgetRef, actions: PublishedAction[]): void {
    const key = widgetKey(widget);
    const ids = new Set(actions.map((action) => action.id));
    for (const tileKey of [...this.tiles.keys()]) {
      if (tileKey.startsWith(`${key}\n`) && !ids.has(tileKey.slice(key.length + 1))) this.drop(tileKey);
    }
    for (const action of actions) {
      const tileKey = `${key}\n${action.id}`;
      const tile = this.tiles.get(tileKey);
      if (tile === undefined) this.tiles.set(tileKey, createTile(action, this.options.timings));
      else this.dispatch(tileKey, { type: 'update', action, at: Date.now() }, false);
    }
  }

  clear(): void {
    for (const tileKey of [...this.tiles.keys()]) this.drop(tileKey);
  }

  render(widget: WidgetRef, actions: PublishedAction[]): HTMLElement {
    const view = this.viewFor(widget);
    return h('div', { class: `tiles ${view.size}` }, ...actions.map((action) => this.renderTile(widget, action.id, view)));
  }

  private renderTile(widget: WidgetRef, id: string, view: TileView): HTMLElement {
    const state = this.tiles.get(`${widgetKey(widget)}\n${id}`);
    if (state === undefined) return h('div', { class: 'tile' });
    const shown = displayTile(state, view);
    const tint = color(state.action.color);
    const mark =
      shown.mark === 'check'
        ? h('span', { class: 'icon check' }, '✓')
        : shown.mark === 'hidden'
          ? null
          : iconElement(state.action.icon ?? state.action.label, `icon ${shown.mark}`);
    const tile = h(
      'button',
      {
        class: `tile ${shown.filled ? 'filled' : 'neutral'}`,
        'data-action': id,
        'data-status': shown.status,
        'aria-pressed': state.action.kind === 'toggle' ? String(state.action.on === true) : null,
        disabled: !shown.pressable,
        style: shown.filled ? `background:${tint};border-color:${tint}` : `--tint:${tint}`,
      },
      mark,
      h('span', { class: 'tile-label' }, shown.label ?? ''),
      shown.line === null ? null : h('span', { class: 'tile-line' }, shown.line),
    );
    tile.addEventListener('click', () => this.press(widget, id));
    return tile;
  }

  private press(widget: WidgetRef, id: string): void {
    const tileKey = `${widgetKey(widget)}\n${id}`;
    const state = this.tiles.get(tileKey);
    if (state === undefined) return;
    const { state: next, request } = pressTile(state, Date.now(), this.viewFor(widget));
    this.store(tileKey, next, true);
    if (request === null) return;
    const value = request.value === undefined ? {} : { value: request.value };
    this.options.log(`press ${widget.slug}/${id}${request.value === undefined ? '' : ` → ${request.value ? 'on' : 'off'}`}`);
    void sendPress(this.options.token(), { owner: widget.owner, slug: widget.slug, action: id, ...value }, this.options.log).then((outcome) => {
      this.options.log(`press ${widget.slug}/${id}: ${outcome}`);
      if (outcome === 'accepted') return;
      const reason = outcome === 'rate_limited' ? 'rate_limited' : outcome === 'unsent' ? 'unsent' : 'refused';
      this.dispatch(tileKey, { type: 'refusal', pressId: request.pressId, reason, at: Date.now() }, true);
    });
  }

  private viewFor(widget: WidgetRef): TileView {
    return { ...this.options.view(), privacy: widget.privacy };
  }

  private dispatch(tileKey: string, event: TileEvent, notify: boolean): void {
    const state = this.tiles.get(tileKey);
    if (state !== undefined) this.store(tileKey, reduceTile(state, event), notify);
  }

  /** Keeps the state and schedules its next deadline as a `timer` event. */
  private store(tileKey: string, state: TileState, notify: boolean): void {
    this.tiles.set(tileKey, state);
    clearTimeout(this.timers.get(tileKey));
    this.timers.delete(tileKey);
    const deadline = nextDeadline(state);
    if (deadline !== null) {
      const timer = setTimeout(() => this.dispatch(tileKey, { type: 'timer', at: Date.now() }, true), Math.max(0, deadline - Date.now()));
      this.timers.set(tileKey, timer);
    }
    if (notify) this.options.changed(tileKey.slice(0, tileKey.indexOf('\n')));
  }

  private drop(tileKey: string): void {
    clearTimeout(this.timers.get(tileKey));
    this.timers.delete(tileKey);
    this.tiles.delete(tileKey);
  }
}

export function widgetKey(widget: { owner: string; slug: string }): string {
  return `${widget.owner}/${widget.slug}`;
}
