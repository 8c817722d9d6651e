import * as v from 'valibot';
import { tagged } from '../discriminated.js';
import { Color } from '../enums.js';
import { valueError } from '../messages.js';
import { arrayItem, httpsUrl, objectItem, orNull, strict, text, textBetween } from '../primitives.js';
import { widgetFields, withDefault } from './common.js';
import { list } from '../list.js';
import { ACTION_ID_PATTERN } from '../fields.js';

const actionId = v.pipe(v.string(), v.minLength(1), v.maxLength(32), v.regex(ACTION_ID_PATTERN));
const stateWord = orNull(textBetween(1, 16));

/**
 * Custom wording of the tile's states. It renames states, never changes when they show.
 * Accepted on both kinds (docs/contract/templates.md#switchboard-state-words gives one shape); words of the other kind never show.
 */
export const StateWords = strict({
  on: stateWord,
  off: stateWord,
  turning_on: stateWord,
  turning_off: stateWord,
  no_response: stateWord,
  sent: stateWord,
});

/**
 * A button. `active` (highlight, set only by the publisher) exists only on buttons and
 * `on` is an unknown field here (`extra_forbidden`). Echo: `kind` and `active` always present.
 */
export const SwitchboardButton = strict({
  id: actionId,
  label: textBetween(1, 32),
  icon: orNull(text(64)),
  kind: withDefault(v.literal('button'), 'button'),
  color: orNull(Color),
  active: withDefault(v.boolean(), false),
  state_words: orNull(StateWords),
});

/** A toggle: `on` (the publisher's truth) is required; `active` is an unknown field here. */
export const SwitchboardToggle = strict({
  id: actionId,
  label: textBetween(1, 32),
  icon: orNull(text(64)),
  kind: v.literal('toggle'),
  color: orNull(Color),
  on: v.boolean(),
  state_words: orNull(StateWords),
});

/** Chosen by `kind`; a missing (or null) `kind` is a button, as in the shown payloads. */
export const SwitchboardAction = tagged('kind', { button: SwitchboardButton, toggle: SwitchboardToggle }, { byDefault: () => 'button', nullIsAbsent: true });

export const SwitchboardGradient = strict({ from: Color, to: Color });

export const SwitchboardPicture = strict({
  url: httpsUrl(),
  alt: textBetween(1, 120),
});

const DUPLICATE_ID = valueError('action ids must be unique within the widget');

/** Reports every repeat of an earlier action id, at `[i, "id"]`. */
function idsAreUnique<TAction extends { id: string }>({ dataset, addIssue }: v.RawCheckContext<TAction[]>): void {
  if (!dataset.typed) return;
  const seen = new Set<string>();
  dataset.value.forEach((action, index) => {
    if (seen.has(action.id)) {
      addIssue({ message: DUPLICATE_ID, path: [arrayItem(dataset.value, index), objectItem(action, 'id')] });
    }
    seen.add(action.id);
  });
}

export const switchboardWidgetSchema = strict({
  ...widgetFields('switchboard'),
  // At most 8: the webhook map holds eight actions plus the default entry.
  actions: list(
    SwitchboardAction,
    { min: 1, max: 8 },
    v.rawCheck(idsAreUnique<v.InferOutput<typeof SwitchboardAction>>),
    v.description('The action ids are unique within the widget.'),
  ),
  title: orNull(text(32)),
  subtitle: orNull(text(64)),
  gradient: orNull(SwitchboardGradient),
  picture: orNull(SwitchboardPicture),
});

export type SwitchboardActionInput = v.InferInput<typeof SwitchboardAction>;
export type SwitchboardActionOutput = v.InferOutput<typeof SwitchboardAction>;
export type SwitchboardWidgetInput = v.InferInput<typeof switchboardWidgetSchema>;
export type SwitchboardWidgetOutput = v.InferOutput<typeof switchboardWidgetSchema>;
