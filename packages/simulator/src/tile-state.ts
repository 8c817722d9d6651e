/**
 * The pressable tile state machine of a switchboard widget, device side (docs/contract/device-api.md#tile-states
 * and rules 1–6 after it; docs/contract/events-and-webhooks.md#confirm-wait).
 *
 * Pure: every event carries its own time (`at`, milliseconds on any monotonic or wall
 * clock the host picks), nothing here reads a clock or starts a timer. The host asks
 * `nextDeadline(state)` when to send the next `timer` event, and `displayTile(state, view)`
 * what to draw. Port it as is to a phone app, or reuse it from JavaScript.
 */

import type { StateWords } from '@tilecast/client';

export type TileKind = 'toggle' | 'button';

/** Custom wording of the states: renames them, never changes when they show (rule 4). The published shape, as the client types it. */
export type { StateWords };

/** A switchboard action as published by the owner (docs/contract/templates.md#switchboard-action). */
export interface PublishedAction {
  id: string;
  label: string;
  /** Absent or null: a button, as in the shown payloads. */
  kind?: TileKind | null;
  /** Toggle only: whether the thing is on now. Owned by the publisher. */
  on?: boolean | null;
  /** Button only: the highlight, set only by the publisher. */
  active?: boolean | null;
  icon?: string | null;
  color?: string | null;
  state_words?: StateWords | null;
}

/** How long each state lasts. Injected so a host (or a test) can shorten them. */
export interface TileTimings {
  /** A toggle waits this long for a confirming update before `No response` (docs/contract/device-api.md#tile-state-no-response: 15 s). */
  toggleWaitMs: number;
  /** `No response` shows for about a minute. */
  noResponseMs: number;
  /** A button waits this long for any update (docs/contract/device-api.md#tile-state-sent: 5 s)... */
  buttonWaitMs: number;
  /** ...then `Sent` stays about 2 s longer before the tile returns to its published content. */
  sentExtraMs: number;
  /** After a press refused by a rate limit the phone ignores taps on the tile for a moment. */
  refusalPauseMs: number;
}

export const DEFAULT_TIMINGS: Readonly<TileTimings> = Object.freeze({
  toggleWaitMs: 15_000,
  noResponseMs: 60_000,
  buttonWaitMs: 5_000,
  sentExtraMs: 2_000,
  refusalPauseMs: 1_000,
});

export const DEFAULT_STATE_WORDS: Readonly<Required<{ [K in keyof StateWords]: string }>> = Object.freeze({
  on: 'On',
  off: 'Off',
  turning_on: 'Turning on',
  turning_off: 'Turning off',
  no_response: 'No response',
  sent: 'Sent',
});

/** A press waiting for its toggle's confirming update; `before` is what the tile showed before it. */
export interface TurningMarker {
  kind: 'turning';
  value: boolean;
  pressId: number;
  deadline: number;
  before: Marker | null;
}

/** The toggle press was not confirmed in time: the last published state plus `No response`. */
export interface NoResponseMarker {
  kind: 'no_response';
  value: boolean;
  deadline: number;
}

/** A button press: `Sent` until any update arrives, or until `deadline`. */
export interface SentMarker {
  kind: 'sent';
  pressId: number;
  deadline: number;
  before: Marker | null;
}

export type Marker = TurningMarker | NoResponseMarker | SentMarker;

export interface TileState {
  /** The last published action: the only source of `on` and `active` (rules 1 and 2). */
  action: PublishedAction;
  /** What the tile shows on top of the published content, or null. */
  marker: Marker | null;
  /** Presses made so far; a press is identified by its number. */
  pressCount: number;
  /** Taps are ignored until then (after a rate-limited press), or null. */
  pausedUntil: number | null;
  timings: TileTimings;
}

export type RefusalReason = 'refused' | 'rate_limited' | 'unsent';

export type TileEvent =
  | { type: 'update'; action: PublishedAction; at: number }
  | { type: 'press'; view?: TileView; at: number }
  /** The press `pressId` was refused by the service, or could not be sent at all. */
  | { type: 'refusal'; pressId: number; reason: RefusalReason; at: number }
  /** A deadline the host scheduled from `nextDeadline` has come. */
  | { type: 'timer'; at: number };

export type TileSurface = 'home_screen' | 'lock_screen' | 'watch' | 'board' | 'preview';

/** Where and how the tile is shown (rules 5 and 6). */
export interface TileView {
  surface: TileSurface;
  size: 'small' | 'medium' | 'large';
  /** The widget's privacy setting and whether the phone is locked. */
  privacy: 'visible' | 'hidden_when_locked';
  locked: boolean;
}

export const HOME_SCREEN: Readonly<TileView> = Object.freeze({ surface: 'home_screen', size: 'medium', privacy: 'visible', locked: false });

export type TileStatus = 'off' | 'on' | 'idle' | 'active' | 'turning_on' | 'turning_off' | 'no_response' | 'sent' | 'hidden';

export interface TileDisplay {
  /** Which row of the state table is showing (`hidden`: labels and state hidden by privacy). */
  status: TileStatus;
  label: string | null;
  /** The second line, in the tile's own wording; null when the tile has none. */
  line: string | null;
  filled: boolean;
  mark: 'full' | 'muted' | 'check' | 'hidden';
  pressable: boolean;
}

/** The request the host sends for a press (`value` only for a toggle). */
export interface PressRequest {
  pressId: number;
  action: string;
  value?: boolean;
}

export function createTile(action: PublishedAction, timings: Partial<TileTimings> = {}): TileState {
  return { action, marker: null, pressCount: 0, pausedUntil: null, timings: { ...DEFAULT_TIMINGS, ...timings } };
}

export function kindOf(action: PublishedAction): TileKind {
  return action.kind === 'toggle' ? 'toggle' : 'button';
}

/** The reducer. Deadlines that passed by `event.at` are applied before and after the event. */
export function reduceTile(state: TileState, event: TileEvent): TileState {
  const current = advance(state, event.at);
  return advance(apply(current, event), event.at);
}

/** A press, and the request to send for it (null when the press is not taken). */
export function pressTile(state: TileState, at: number, view: TileView = HOME_SCREEN): { state: TileState; request: PressRequest | null } {
  const next = reduceTile(state, { type: 'press', view, at });
  if (next.pressCount === state.pressCount) return { state: next, request: null };
  const request: PressRequest = { pressId: next.pressCount, action: next.action.id };
  if (next.marker?.kind === 'turning') request.value = next.marker.value;
  return { state: next, request };
}

/** When the host must send the next `timer` event, or null when nothing is pending. */
export function nextDeadline(state: TileState): number | null {
  return state.marker?.deadline ?? null;
}

/** Presses are taken only on the Home Screen (rule 6) and never while privacy hides the tile (rule 5). */
export function canPress(view: TileView): boolean {
  return view.surface === 'home_screen' && !isHidden(view);
}

export function displayTile(state: TileState, view: TileView = HOME_SCREEN): TileDisplay {
  if (isHidden(view)) return { status: 'hidden', label: null, line: null, filled: false, mark: 'hidden', pressable: false };
  const { action } = state;
  const status = statusOf(state);
  const toggle = kindOf(action) === 'toggle';
  return {
    status,
    label: action.label,
    // The small size has no second line (rule 5).
    line: view.size === 'small' ? null : lineFor(status, action.state_words),
    // Only the publisher fills a tile (rules 1 and 2); markers never do.
    filled: toggle ? action.on === true : action.active === true,
    mark: status === 'sent' ? 'check' : toggle && action.on !== true ? 'muted' : 'full',
    pressable: canPress(view),
  };
}

export function statusOf(state: TileState): Exclude<TileStatus, 'hidden'> {
  const { action, marker } = state;
  if (kindOf(action) === 'button') {
    // Buttons never show `No response` (rule 3): only a `sent` marker is ever shown on them.
    if (marker?.kind === 'sent') return 'sent';
    return action.active === true ? 'active' : 'idle';
  }
  if (marker?.kind === 'turning') return marker.value ? 'turning_on' : 'turning_off';
  if (marker?.kind === 'no_response') return 'no_response';
  return action.on === true ? 'on' : 'off';
}

function isHidden(view: TileView): boolean {
  return view.privacy === 'hidden_when_locked' && view.locked;
}

/** Buttons at rest have no state line: the label says what they do. */
function lineFor(status: Exclude<TileStatus, 'hidden'>, custom: StateWords | null | undefined): string | null {
  if (status === 'idle' || status === 'active') return null;
  return custom?.[status] ?? DEFAULT_STATE_WORDS[status];
}

function apply(state: TileState, event: TileEvent): TileState {
  switch (event.type) {
    case 'update':
      return applyUpdate(state, event.action);
    case 'press':
      return applyPress(state, event.at, event.view ?? HOME_SCREEN);
    case 'refusal':
      return applyRefusal(state, event.pressId, event.reason, event.at);
    case 'timer':
      return state; // `advance` already did the work
  }
}

function applyUpdate(state: TileState, action: PublishedAction): TileState {
  // A changed kind makes a waiting press meaningless: drop it rather than guess.
  const sameKind = kindOf(action) === kindOf(state.action);
  return { ...state, action, marker: sameKind ? settle(state.marker, action) : null };
}

/**
 * What an update leaves of a marker: a toggle's wait ends only when the update shows the
 * requested state (even during `No response`); a button's `Sent` ends on any update.
 * The saved `before` is settled too, so a later refusal never restores a stale marker.
 */
function settle(marker: Marker | null, action: PublishedAction): Marker | null {
  if (marker === null || marker.kind === 'sent') return null;
  if (action.on === marker.value) return null;
  if (marker.kind === 'no_response') return marker;
  return { ...marker, before: settle(marker.before, action) };
}

function applyPress(state: TileState, at: number, view: TileView): TileState {
  if (!canPress(view)) return state;
  if (state.pausedUntil !== null && at < state.pausedUntil) return state;
  const pressId = state.pressCount + 1;
  // Only one level of history is kept, so repeated presses never grow the state.
  const before = state.marker === null ? null : withoutHistory(state.marker);
  const { timings } = state;
  const marker: Marker =
    kindOf(state.action) === 'toggle'
      ? { kind: 'turning', value: requestedValue(state), pressId, deadline: at + timings.toggleWaitMs, before }
      : { kind: 'sent', pressId, deadline: at + timings.buttonWaitMs + timings.sentExtraMs, before };
  return { ...state, marker, pressCount: pressId };
}

/**
 * A toggle asks for the opposite of its published state; pressed again while it is still
 * turning, it asks for the opposite of what it was turning to (the person changed their mind).
 */
function requestedValue(state: TileState): boolean {
  if (state.marker?.kind === 'turning') return !state.marker.value;
  return state.action.on !== true;
}

function withoutHistory(marker: Marker): Marker {
  return marker.kind === 'no_response' ? marker : { ...marker, before: null };
}

/** Back to what the tile showed before the press, with no marker of the refusal itself. */
function applyRefusal(state: TileState, pressId: number, reason: RefusalReason, at: number): TileState {
  const { marker } = state;
  if (marker === null || marker.kind === 'no_response' || marker.pressId !== pressId) return state; // an older press: superseded
  const pausedUntil = reason === 'rate_limited' ? at + state.timings.refusalPauseMs : state.pausedUntil;
  return { ...state, marker: marker.before, pausedUntil };
}

/** Applies every deadline passed by `at`: at most turning → no response → none, so two steps. */
function advance(state: TileState, at: number): TileState {
  let next = state;
  for (let step = 0; step < 2 && next.marker !== null && next.marker.deadline <= at; step++) {
    next = { ...next, marker: expire(next.marker, next.timings) };
  }
  if (next.pausedUntil !== null && next.pausedUntil <= at) next = { ...next, pausedUntil: null };
  return next;
}

function expire(marker: Marker, timings: TileTimings): Marker | null {
  if (marker.kind !== 'turning') return null;
  // Measured from the end of the wait, so a late timer never stretches `No response`.
  return { kind: 'no_response', value: marker.value, deadline: marker.deadline + timings.noResponseMs };
}
