import type { TilecastContext } from '../context.js';
import { fail } from '../errors.js';
import { validate, widgetContentSchemas, widgetUpdateEnvelope } from '../schemas/index.js';
import type { AccountRecord } from '../storage/records.js';

/** Largest compact UTF-8 JSON serialisation of `content`, as received (spec "Limits"). */
export const WIDGET_CONTENT_MAX_BYTES = 4096;

export interface WidgetData {
  content: unknown;
  stale_after: number | null;
}

/**
 * `PATCH /widget/{slug}` after authentication, in the order of reference-deployment §2:
 * envelope (422 array) → lookup (404) → template (400) → content schema or size
 * (`422 Invalid widget content`).
 */
export async function updateWidget(
  context: TilecastContext,
  account: AccountRecord,
  slug: string,
  body: unknown,
  /** Size of the whole request body, when known: content within a body this small fits the limit. */
  bodyBytes?: number,
): Promise<WidgetData> {
  const envelope = validate(widgetUpdateEnvelope, body, ['body']);
  if (!envelope.success) fail({ kind: 'validation', errors: envelope.errors });
  const { content } = envelope.output;

  const widget = await context.storage.getWidget(account.id, slug);
  if (widget === null) fail({ kind: 'widget_not_found' });
  const template = content.template ?? widget.template;
  if (template !== widget.template) fail({ kind: 'template_mismatch' });

  const surelyFits = bodyBytes !== undefined && bodyBytes <= WIDGET_CONTENT_MAX_BYTES;
  if (!surelyFits && !fitsContentLimit(content)) fail({ kind: 'invalid_widget_content' });
  const schema = widgetContentSchemas[template as keyof typeof widgetContentSchemas];
  const validated = validate(schema, { ...content, template }, ['body', 'content']);
  if (!validated.success) fail({ kind: 'invalid_widget_content' });

  // Omitted `stale_after` keeps the widget's setting; an explicit null clears it.
  const staleAfter = hasOwn(body, 'stale_after') ? (envelope.output.stale_after ?? null) : undefined;
  const updated = await context.storage.setWidgetContent(account.id, slug, {
    content: validated.output,
    staleAfter,
    now: context.clock.now(),
  });
  if (updated === null) fail({ kind: 'widget_not_found' });

  context.devices.widgetChanged(updated);
  return { content: updated.content, stale_after: updated.staleAfter };
}

function fitsContentLimit(content: unknown): boolean {
  let json: string;
  try {
    json = JSON.stringify(content);
  } catch {
    return false; // absurd nesting cannot be valid content either
  }
  // Every UTF-16 unit is at least one UTF-8 byte, so a longer string is over the limit
  // without counting bytes.
  return json.length <= WIDGET_CONTENT_MAX_BYTES && Buffer.byteLength(json, 'utf8') <= WIDGET_CONTENT_MAX_BYTES;
}

function hasOwn(value: unknown, key: string): boolean {
  return typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, key);
}
