import type { TilecastContext } from '../context.js';
import { fail, type FieldError } from '../errors.js';
import { pressReport, validate, type PressReport } from '../schemas/index.js';
import type { DeviceRecord, StoredEvent, WidgetRecord } from '../storage/records.js';
import { frameEvent } from '../events/frame-cache.js';
import { pressEventIdOfKey, pressKey } from './event-id.js';
import { pressRateRules } from './rate-limits.js';
import { widgetKey } from '../services/device-fanout.js';
import { isoTime } from '../iso-time.js';

export const EVENT_TYPE = 'widget.action.v1';
/** An event expires 5 s after it occurred (spec "Limits"). */
export const EVENT_LIFETIME_MS = 5_000;
/** How long a press's `request_id` is remembered for de-duplication: far beyond any phone retry. */
export const PRESS_KEY_TTL_MS = 10 * 60_000;
/** A phone that pressed a tile gets the widget's next update unthrottled for this long (reference-deployment §5). */
export const CONFIRMATION_WINDOW_MS = 15_000;

type ActionKind = 'button' | 'toggle';

/**
 * `POST /device/presses` after device authentication: body (`422`), widget visible to this
 * device (`404`), action and value (`422`), then de-duplication, rate limits (`429`), and
 * the event: logged for `/events`, handed to webhooks. Returns the event id.
 */
export async function acceptPress(context: TilecastContext, device: DeviceRecord, body: unknown): Promise<string> {
  const parsed = validate(pressReport, body, ['body']);
  if (!parsed.success) fail({ kind: 'validation', errors: parsed.errors });
  const press = parsed.output;
  const { storage, clock } = context;

  const widget = await storage.getWidget(press.owner, press.slug);
  // Shown on every device of its account; a share is looked up only for another account's device.
  if (widget === null || (widget.accountId !== device.accountId && !(await isSharedWith(context, widget, device)))) fail({ kind: 'widget_not_found' });
  const kind = checkAction(widget, press);

  const now = clock.now();
  const key = pressKey(press.owner, press.slug, press.request_id);
  // One atomic store call: a retry of an accepted press is answered with its event id
  // without spending tokens, and an admitted key always has its event logged.
  const admission = await storage.admitPress({
    key,
    keyExpiresAt: now + PRESS_KEY_TTL_MS,
    rules: pressRateRules(device.id, press.owner, press.slug),
    now,
    note: { widgetKey: widgetKey(press.owner, press.slug), deviceId: device.id, until: now + CONFIRMATION_WINDOW_MS },
    accountId: press.owner,
    event: pressEvent(pressEventIdOfKey(key), press, kind, now),
  });
  if (admission.outcome === 'duplicate') return admission.eventId;
  if (admission.outcome === 'limited') fail({ kind: 'too_many_presses' });
  const { event } = admission;
  // Framed once here; the account's streams on this instance take the frame as it is.
  context.bus.notify(press.owner, frameEvent(event));
  context.onEvent(press.owner, press.slug, event);
  return event.id;
}

async function isSharedWith(context: TilecastContext, widget: WidgetRecord, device: DeviceRecord): Promise<boolean> {
  return (await context.storage.listWidgetShares(widget.accountId, widget.slug)).includes(device.id);
}

/** The action's kind from the widget's current content; `value` required for a toggle, refused for a button. */
function checkAction(widget: WidgetRecord, press: PressReport): ActionKind {
  const action = findAction(widget.content, press.action);
  if (action === undefined) fail({ kind: 'validation', errors: [fieldError(['body', 'action'], 'Value error, Unknown action id', 'value_error')] });
  if (action === 'toggle' && press.value === undefined) fail({ kind: 'validation', errors: [fieldError(['body', 'value'], 'Field required', 'missing')] });
  if (action === 'button' && press.value !== undefined) {
    fail({ kind: 'validation', errors: [fieldError(['body', 'value'], 'Extra inputs are not permitted', 'extra_forbidden')] });
  }
  return action;
}

function findAction(content: unknown, id: string): ActionKind | undefined {
  const actions = (content as { actions?: unknown } | null)?.actions;
  if (!Array.isArray(actions)) return undefined;
  const action = actions.find((candidate: { id?: unknown }) => candidate?.id === id) as { kind?: unknown } | undefined;
  if (action === undefined) return undefined;
  return action.kind === 'toggle' ? 'toggle' : 'button';
}

function fieldError(loc: FieldError['loc'], msg: string, type: string): FieldError {
  return { loc, msg, type };
}

/** The event envelope exactly as specified ("Events → Envelope"). */
function pressEvent(id: string, press: PressReport, kind: ActionKind, now: number): Omit<StoredEvent, 'position'> {
  const expiresAt = now + EVENT_LIFETIME_MS;
  const data: Record<string, unknown> = { action: press.action, kind };
  if (kind === 'toggle') data.value = press.value;
  return {
    id,
    subject: `widget/${press.slug}`,
    type: EVENT_TYPE,
    expiresAt,
    envelope: {
      id,
      request_id: press.request_id,
      type: EVENT_TYPE,
      subject: { kind: 'widget', slug: press.slug },
      occurred_at: isoTime(now),
      expires_at: isoTime(expiresAt),
      data,
    },
  };
}
