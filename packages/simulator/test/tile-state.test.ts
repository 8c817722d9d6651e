/**
 * The pressable tile state machine against the display states of docs/contract/device-api.md#tile-states
 * (one block per row) and rules 1–6 after it, with the timings of docs/contract/events-and-webhooks.md#confirm-wait.
 */
import { describe, expect, it } from 'vitest';
import {
  createTile,
  DEFAULT_TIMINGS,
  displayTile,
  nextDeadline,
  pressTile,
  reduceTile,
  type PublishedAction,
  type TileState,
  type TileView,
} from '../src/index.js';

const toggle = (on: boolean, extra: Partial<PublishedAction> = {}): PublishedAction => ({ id: 'hall', label: 'Hall', kind: 'toggle', on, ...extra });
const button = (extra: Partial<PublishedAction> = {}): PublishedAction => ({ id: 'bell', label: 'Doorbell', ...extra });

const update = (state: TileState, action: PublishedAction, at: number) => reduceTile(state, { type: 'update', action, at });
const timer = (state: TileState, at: number) => reduceTile(state, { type: 'timer', at });
const press = (state: TileState, at: number, view?: TileView) => pressTile(state, at, view);
const line = (state: TileState, view?: TileView) => displayTile(state, view).line;
const status = (state: TileState, view?: TileView) => displayTile(state, view).status;

/** A toggle pressed at t=1000 from the published `on` value. */
function pressedToggle(on = false) {
  const { state, request } = press(createTile(toggle(on)), 1_000);
  return { state, request: request! };
}

function pressedButton(extra: Partial<PublishedAction> = {}) {
  const { state, request } = press(createTile(button(extra)), 1_000);
  return { state, request: request! };
}

describe('state table', () => {
  it('Off (toggle): published on false: neutral tile, muted mark, second line Off', () => {
    expect(displayTile(createTile(toggle(false)))).toEqual({ status: 'off', label: 'Hall', line: 'Off', filled: false, mark: 'muted', pressable: true });
  });

  it('Idle (button): no active true: neutral tile, full mark, no state line', () => {
    expect(displayTile(createTile(button()))).toEqual({ status: 'idle', label: 'Doorbell', line: null, filled: false, mark: 'full', pressable: true });
    expect(status(createTile(button({ active: false })))).toBe('idle');
    expect(status(createTile(button({ active: null })))).toBe('idle');
  });

  it('On (toggle): published on true: tile filled with its mark', () => {
    expect(displayTile(createTile(toggle(true)))).toMatchObject({ status: 'on', line: 'On', filled: true, mark: 'full' });
  });

  it('active (button): published active true: tile filled with its mark', () => {
    expect(displayTile(createTile(button({ active: true })))).toMatchObject({ status: 'active', filled: true, mark: 'full' });
  });

  describe('Turning on / Turning off', () => {
    it('shows Turning on right after pressing an off toggle, and requests on', () => {
      const { state, request } = pressedToggle(false);
      expect(request).toEqual({ pressId: 1, action: 'hall', value: true });
      expect(displayTile(state)).toMatchObject({ status: 'turning_on', line: 'Turning on', filled: false, mark: 'muted' });
    });

    it('shows Turning off right after pressing an on toggle, and requests off', () => {
      const { state, request } = pressedToggle(true);
      expect(request.value).toBe(false);
      expect(displayTile(state)).toMatchObject({ status: 'turning_off', line: 'Turning off', filled: true });
    });

    it('ends when an update shows the requested state', () => {
      const { state } = pressedToggle(false);
      const confirmed = update(state, toggle(true), 3_000);
      expect(displayTile(confirmed)).toMatchObject({ status: 'on', line: 'On', filled: true });
      expect(nextDeadline(confirmed)).toBeNull();
    });

    it('does not end on an update showing the old state (the request is not a fact)', () => {
      const { state } = pressedToggle(false);
      const unchanged = update(state, toggle(false, { label: 'Hallway' }), 3_000);
      expect(displayTile(unchanged)).toMatchObject({ status: 'turning_on', label: 'Hallway', filled: false });
    });

    it('pressed again while turning, asks for the opposite of what it was turning to', () => {
      const { state } = pressedToggle(false);
      const again = press(state, 2_000);
      expect(again.request).toEqual({ pressId: 2, action: 'hall', value: false });
      expect(status(again.state)).toBe('turning_off');
      expect(status(update(again.state, toggle(false), 2_500))).toBe('off');
    });
  });

  describe('No response (toggle)', () => {
    it('shows after 15 s without a confirming update, on the last published state', () => {
      const { state } = pressedToggle(false);
      expect(nextDeadline(state)).toBe(1_000 + DEFAULT_TIMINGS.toggleWaitMs);
      expect(status(timer(state, 15_999))).toBe('turning_on');
      const late = timer(state, 16_000);
      expect(displayTile(late)).toMatchObject({ status: 'no_response', line: 'No response', filled: false, mark: 'muted' });
    });

    it('lasts about a minute, then the tile shows its published state with no marker', () => {
      const late = timer(pressedToggle(false).state, 16_000);
      expect(nextDeadline(late)).toBe(16_000 + DEFAULT_TIMINGS.noResponseMs);
      expect(status(timer(late, 75_999))).toBe('no_response');
      const over = timer(late, 76_000);
      expect(displayTile(over)).toMatchObject({ status: 'off', line: 'Off' });
      expect(nextDeadline(over)).toBeNull();
    });

    it('a timer firing late never stretches the minute', () => {
      const late = timer(pressedToggle(false).state, 20_000);
      expect(nextDeadline(late)).toBe(76_000);
    });

    it('both deadlines passed at once: straight back to the published state', () => {
      expect(status(timer(pressedToggle(false).state, 100_000))).toBe('off');
    });

    it('a confirming update ends it at any point', () => {
      const late = timer(pressedToggle(false).state, 16_000);
      expect(displayTile(update(late, toggle(true), 40_000))).toMatchObject({ status: 'on', filled: true });
    });

    it('an update that is not confirming keeps it, with the new published content', () => {
      const late = timer(pressedToggle(false).state, 16_000);
      expect(displayTile(update(late, toggle(false, { label: 'Porch' }), 40_000))).toMatchObject({ status: 'no_response', label: 'Porch' });
    });

    it('a press during No response asks for the opposite of the published state', () => {
      const late = timer(pressedToggle(false).state, 16_000);
      const again = press(late, 20_000);
      expect(again.request?.value).toBe(true);
      expect(status(again.state)).toBe('turning_on');
    });
  });

  describe('Sent (button)', () => {
    it('shows a check mark and Sent right after the press, and sends no value', () => {
      const { state, request } = pressedButton();
      expect(request).toEqual({ pressId: 1, action: 'bell' });
      expect(displayTile(state)).toMatchObject({ status: 'sent', line: 'Sent', mark: 'check', filled: false });
    });

    it('ends on any update after the press, even an identical one', () => {
      const { state } = pressedButton();
      expect(status(update(state, button(), 2_000))).toBe('idle');
    });

    it('with no update within 5 s, stays about 2 s longer, then shows the last published content', () => {
      const { state } = pressedButton();
      expect(nextDeadline(state)).toBe(1_000 + DEFAULT_TIMINGS.buttonWaitMs + DEFAULT_TIMINGS.sentExtraMs);
      expect(status(timer(state, 6_000))).toBe('sent');
      expect(status(timer(state, 7_999))).toBe('sent');
      const back = timer(state, 8_000);
      expect(status(back)).toBe('idle');
      expect(nextDeadline(back)).toBeNull();
    });

    it('an update in the extra 2 s still ends it', () => {
      expect(status(update(pressedButton().state, button(), 7_000))).toBe('idle');
    });
  });

  describe('Back to previous', () => {
    it('a refused toggle press returns to what the tile showed, with no marker', () => {
      const { state, request } = pressedToggle(false);
      const back = reduceTile(state, { type: 'refusal', pressId: request.pressId, reason: 'refused', at: 1_200 });
      expect(displayTile(back)).toEqual(displayTile(createTile(toggle(false))));
      expect(nextDeadline(back)).toBeNull();
    });

    it('a press that cannot be sent returns to what the tile showed', () => {
      const { state, request } = pressedButton({ active: true });
      const back = reduceTile(state, { type: 'refusal', pressId: request.pressId, reason: 'unsent', at: 1_200 });
      expect(displayTile(back)).toMatchObject({ status: 'active', filled: true, mark: 'full' });
    });

    it('returns to No response when that is what the tile showed before the press', () => {
      const late = timer(pressedToggle(false).state, 16_000);
      const again = press(late, 20_000);
      const back = reduceTile(again.state, { type: 'refusal', pressId: again.request!.pressId, reason: 'refused', at: 20_100 });
      expect(status(back)).toBe('no_response');
      expect(nextDeadline(back)).toBe(76_000);
    });

    it('returns to Turning on when refused pressing again, and keeps its deadline', () => {
      const { state } = pressedToggle(false);
      const again = press(state, 2_000);
      const back = reduceTile(again.state, { type: 'refusal', pressId: again.request!.pressId, reason: 'refused', at: 2_100 });
      expect(status(back)).toBe('turning_on');
      expect(nextDeadline(back)).toBe(16_000);
    });

    it('never restores a marker that an update settled meanwhile', () => {
      const { state } = pressedToggle(false);
      const again = press(state, 2_000); // turning off, on top of turning on
      const confirmedOn = update(again.state, toggle(true), 2_050); // confirms the first press only
      expect(status(confirmedOn)).toBe('turning_off');
      const back = reduceTile(confirmedOn, { type: 'refusal', pressId: 2, reason: 'refused', at: 2_100 });
      expect(status(back)).toBe('on');
    });

    it('ignores the refusal of an older press', () => {
      const { state } = pressedToggle(false);
      const again = press(state, 2_000);
      expect(reduceTile(again.state, { type: 'refusal', pressId: 1, reason: 'refused', at: 2_100 })).toEqual(again.state);
    });

    it('after a rate-limited press, taps are ignored for a moment', () => {
      const { state, request } = pressedButton();
      const back = reduceTile(state, { type: 'refusal', pressId: request.pressId, reason: 'rate_limited', at: 1_100 });
      expect(press(back, 1_500).request).toBeNull();
      expect(status(press(back, 1_500).state)).toBe('idle');
      expect(press(back, 1_100 + DEFAULT_TIMINGS.refusalPauseMs).request).toEqual({ pressId: 2, action: 'bell' });
    });
  });
});

describe('rules', () => {
  it('1: a toggle fills or empties only on an update with the new on value', () => {
    let state = pressedToggle(false).state;
    expect(displayTile(state).filled).toBe(false);
    state = timer(state, 16_000);
    expect(displayTile(state).filled).toBe(false); // no response: still what was published
    state = update(state, toggle(true), 17_000);
    expect(displayTile(state).filled).toBe(true);
    const off = press(state, 18_000).state;
    expect(displayTile(off).filled).toBe(true); // turning off: still filled
    expect(displayTile(update(off, toggle(false), 19_000)).filled).toBe(false);
  });

  it('2: a button is highlighted only when published active; a press never sets it', () => {
    const { state } = pressedButton();
    expect(displayTile(state).filled).toBe(false);
    expect(displayTile(timer(state, 8_000)).filled).toBe(false);
    expect(displayTile(update(state, button({ active: true }), 2_000))).toMatchObject({ status: 'active', filled: true });
    const highlighted = pressedButton({ active: true }).state;
    expect(displayTile(update(highlighted, button({ active: false }), 2_000)).filled).toBe(false);
  });

  it('3: buttons never show No response, however long nothing arrives', () => {
    const { state } = pressedButton();
    for (const at of [1_000, 5_000, 16_000, 17_000, 60_000, 120_000]) expect(status(timer(state, at))).not.toBe('no_response');
  });

  it('3: a toggle turned into a button drops its wait instead of showing No response', () => {
    const { state } = pressedToggle(false);
    const nowButton = update(state, { id: 'hall', label: 'Hall' }, 2_000);
    expect(status(timer(nowButton, 20_000))).toBe('idle');
    expect(nextDeadline(nowButton)).toBeNull();
  });

  describe('4: custom state words rename states without changing when they show', () => {
    const words = { on: 'Lit', off: 'Dark', turning_on: 'Lighting', turning_off: 'Dimming', no_response: 'No answer', sent: 'Rung' };

    it('toggle words', () => {
      const off = createTile(toggle(false, { state_words: words }));
      expect(line(off)).toBe('Dark');
      expect(line(createTile(toggle(true, { state_words: words })))).toBe('Lit');
      const turning = press(off, 1_000).state;
      expect(line(turning)).toBe('Lighting');
      expect(nextDeadline(turning)).toBe(16_000);
      expect(line(press(createTile(toggle(true, { state_words: words })), 1_000).state)).toBe('Dimming');
      const late = timer(turning, 16_000);
      expect(line(late)).toBe('No answer');
      expect(nextDeadline(late)).toBe(76_000);
    });

    it('button words', () => {
      const { state } = press(createTile(button({ state_words: words })), 1_000);
      expect(line(state)).toBe('Rung');
      expect(nextDeadline(state)).toBe(8_000);
    });

    it('missing or null words keep the default wording', () => {
      const tile = createTile(toggle(false, { state_words: { on: 'Lit', off: null } }));
      expect(line(tile)).toBe('Off');
      expect(line(press(tile, 1_000).state)).toBe('Turning on');
    });
  });

  describe('5: small size and privacy', () => {
    const small: TileView = { surface: 'home_screen', size: 'small', privacy: 'visible', locked: false };
    const lockedHidden: TileView = { surface: 'home_screen', size: 'medium', privacy: 'hidden_when_locked', locked: true };

    it('the small size has no second line, in any state', () => {
      const { state } = pressedToggle(false);
      expect(displayTile(state, small)).toMatchObject({ status: 'turning_on', line: null, label: 'Hall', pressable: true });
      expect(line(createTile(toggle(true)), small)).toBeNull();
    });

    it('hidden when locked: no label, no state, no presses', () => {
      const on = createTile(toggle(true));
      expect(displayTile(on, lockedHidden)).toEqual({ status: 'hidden', label: null, line: null, filled: false, mark: 'hidden', pressable: false });
      expect(press(on, 1_000, lockedHidden).request).toBeNull();
      expect(press(on, 1_000, lockedHidden).state.marker).toBeNull();
    });

    it('the privacy setting hides nothing while the phone is unlocked, and a visible widget shows while locked', () => {
      const on = createTile(toggle(true));
      expect(displayTile(on, { ...lockedHidden, locked: false })).toMatchObject({ status: 'on', pressable: true });
      expect(displayTile(on, { ...lockedHidden, privacy: 'visible' })).toMatchObject({ status: 'on', pressable: true });
    });
  });

  it('6: presses only from the Home Screen; other surfaces show state but take no presses', () => {
    const on = createTile(toggle(true));
    for (const surface of ['lock_screen', 'watch', 'board', 'preview'] as const) {
      const view: TileView = { surface, size: 'medium', privacy: 'visible', locked: false };
      expect(displayTile(on, view)).toMatchObject({ status: 'on', filled: true, pressable: false });
      const pressed = press(on, 1_000, view);
      expect(pressed.request).toBeNull();
      expect(status(pressed.state, view)).toBe('on');
    }
    expect(press(on, 1_000).request).not.toBeNull();
  });
});

describe('timings', () => {
  it('are injected: a short clock for tests and demos', () => {
    const fast = createTile(toggle(false), { toggleWaitMs: 500, noResponseMs: 1_000 });
    const { state } = press(fast, 0);
    expect(nextDeadline(state)).toBe(500);
    expect(status(timer(state, 500))).toBe('no_response');
    expect(status(timer(timer(state, 500), 1_500))).toBe('off');
  });

  it('the reducer never mutates the state it is given', () => {
    const tile = createTile(toggle(false));
    const frozen = JSON.stringify(tile);
    const { state } = press(tile, 1_000);
    timer(state, 20_000);
    update(state, toggle(true), 2_000);
    expect(JSON.stringify(tile)).toBe(frozen);
    expect(status(tile)).toBe('off');
  });
});
