import type { TilecastContext } from '../context.js';
import { fail, type FieldError } from '../errors.js';
import { pressReport, validate, type PressReport } from '../schemas/index.js';
import type { DeviceRecord, StoredEvent } from '../storage/records.js';
import type { PressTarget } from '../storage/press-target.js';
import { pressEventIdOfKey, pressKey } from './event-id.js';
import { pressRateRules } from './rate-limits.js';
import { widgetKey } from '../storage/widget-key.js';
import { isoTime } from '../iso-time.js';
import type { PressObservation } from '../observer.js';

export const EVENT_TYPE = 'widget.action.v1';
/** An event expires 5 s after it occurred (docs/contract/events-and-webhooks.md#event-expiry). */
export const EVENT_LIFETIME_MS = 5_000;
/** How long a press's `request_id` is remembered for de-duplication: far beyond any phone retry (docs/contract/device-api.md#press-retry-window). */
export const PRESS_KEY_TTL_MS = 10 * 60_000;
/** A phone that pressed a tile gets the widget's next update unthrottled for this long (docs/contract/device-api.md#press-confirm-unthrottled). */
export const CONFIRMATION_WINDOW_MS = 15_000;

type ActionKind = NonNullable<PressTarget['action']>;

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

  // One read for what a press needs of the widget, without copying its content.
  const target = await storage.getPressTarget(press.owner, press.slug, press.action, device.id);
  // Shown on every device of its account, and on the devices it is shared with.
  if (target === null || (press.owner !== device.accountId && !target.sharedWithDevice)) fail({ kind: 'widget_not_found' });
  const kind = checkAction(target.action, press);

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
  if (context.observer !== undefined) context.observer.press(PRESS_OUTCOMES[admission.outcome]);
  if (admission.outcome === 'duplicate') return admission.eventId;
  if (admission.outcome === 'limited') fail({ kind: 'too_many_presses' });
  const { event } = admission;
  // Framed once, by the bus, when the account has streams on this instance; they take the frame as it is.
  context.bus.notify(press.owner, event);
  // A widget without webhooks has nothing to deliver: no lookup, no task per press. (A map
  // set meanwhile applies from the next press on, as one set just after a delivery's read would.)
  if (target.hasWebhooks) context.onEvent(press.owner, press.slug, event);
  return event.id;
}

/** The observation of each admission's outcome, made once. */
const PRESS_OUTCOMES: Record<'accepted' | 'duplicate' | 'limited', PressObservation> = {
  accepted: { outcome: 'accepted' },
  duplicate: { outcome: 'duplicate' },
  limited: { outcome: 'limited' },
};

/** The action's kind (`actionKindIn`); `value` required for a toggle, refused for a button. */
function checkAction(action: ActionKind | null, press: PressReport): ActionKind {
  if (action === null) fail({ kind: 'validation', errors: [fieldError(['body', 'action'], 'Value error, Unknown action id', 'value_error')] });
  if (action === 'toggle' && press.value === undefined) fail({ kind: 'validation', errors: [fieldError(['body', 'value'], 'Field required', 'missing')] });
  if (action === 'button' && press.value !== undefined) {
    fail({ kind: 'validation', errors: [fieldError(['body', 'value'], 'Extra inputs are not permitted', 'extra_forbidden')] });
  }
  return action;
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
