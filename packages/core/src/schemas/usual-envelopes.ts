/**
 * The envelope checks of `PATCH /widget` and `PATCH /activity` for the bodies publishers
 * nearly always send, without valibot's walk: an envelope of only its required keys whose
 * content is an object with a known template or none is accepted by the full check
 * unchanged, so its output is built here. Every other body gets the full check, and so
 * exactly its errors (envelopes.test.ts compares the two on generated bodies).
 */
import { activityTemplateNames } from './activity.js';
import { ActivityState } from './enums.js';
import { hasOtherTemplate } from './content-template.js';
import { activityUpdateEnvelope, widgetUpdateEnvelope, type ActivityUpdateEnvelope, type WidgetUpdateEnvelope } from './envelopes.js';
import { isPlainObject } from './primitives.js';
import { validate, type ValidationResult } from './validate.js';
import { widgetTemplateNames } from './widgets/names.js';

/** `validate(widgetUpdateEnvelope, body, ['body'])`; `{content}` without `stale_after` answered here. */
export function validateWidgetEnvelope(body: unknown): ValidationResult<WidgetUpdateEnvelope> {
  if (hasOnlyKeys(body, 1, 'content') && isUsualContent(body.content, widgetTemplateNames)) {
    return { success: true, output: { content: body.content as WidgetUpdateEnvelope['content'] } };
  }
  return validate(widgetUpdateEnvelope, body, ['body']);
}

/** `validate(activityUpdateEnvelope, body, ['body'])`; `{state, content}` answered here. */
export function validateActivityEnvelope(body: unknown): ValidationResult<ActivityUpdateEnvelope> {
  if (hasOnlyKeys(body, 2, 'state', 'content') && STATES.includes(body.state) && isUsualContent(body.content, activityTemplateNames)) {
    return { success: true, output: { state: body.state as ActivityUpdateEnvelope['state'], content: body.content as ActivityUpdateEnvelope['content'] } };
  }
  return validate(activityUpdateEnvelope, body, ['body']);
}

const STATES: readonly unknown[] = ActivityState.options;

/** A plain object whose enumerable keys (as `for…in` and the full check see them) are `count` of `first`, `second`. */
function hasOnlyKeys(body: unknown, count: number, first: string, second?: string): body is Record<string, unknown> {
  if (!isPlainObject(body)) return false;
  let seen = 0;
  for (const key in body) {
    if (key !== first && key !== second) return false;
    seen++;
  }
  return seen === count;
}

function isUsualContent(content: unknown, names: readonly string[]): boolean {
  return isPlainObject(content) && !hasOtherTemplate(content, names);
}
