import type { PublisherCredential } from '../auth/publisher-credentials.js';
import type { TilecastContext } from '../context.js';
import { fail } from '../errors.js';
import type { SizedJsonBody } from '../http/body.js';
import { validate, widgetContentSchemas, type WidgetTemplateName } from '../schemas/index.js';
import { validateWidgetEnvelope } from '../schemas/usual-envelopes.js';
import { checkedTemplate, refusalError, withTemplate } from './publish-checks.js';

/**
 * Largest compact UTF-8 JSON serialisation of the parsed `content` (
 * docs/contract/publisher-api.md#widget-content-size): what is stored and pushed, not the request text.
 */
export const WIDGET_CONTENT_MAX_BYTES = 4096;

/**
 * The templates whose content holds no number at all, whose compact serialisation is
 * therefore never larger than the body it was parsed from (a unit test checks this list
 * against every template's schema).
 */
export const NUMBER_FREE_WIDGET_TEMPLATES: ReadonlySet<string> = new Set<WidgetTemplateName>(['status', 'countdown', 'list', 'switchboard']);

export interface WidgetData {
  content: unknown;
  stale_after: number | null;
}

/**
 * `PATCH /widget/{slug}` after authentication, answering in the order of
 * docs/contract/publisher-api.md#check-order: envelope (422 array) → lookup (404) → template (400) →
 * content schema or size (`422 Invalid widget content`).
 *
 * When the body names its template, the content is checked first and the lookup and the
 * template check happen inside the write (its guard): one store call. Only invalid
 * content needs a lookup first, to give 404 and 400 their precedence over the 422.
 */
export async function updateWidget(
  context: TilecastContext,
  { account, tokenHash }: PublisherCredential,
  slug: string,
  body: unknown,
  /** The body's size, when known (`readJsonBodySized`): below the limit, content may surely fit. */
  size?: BodySize,
): Promise<WidgetData> {
  const envelope = validateWidgetEnvelope(body);
  if (!envelope.success) fail({ kind: 'validation', errors: envelope.errors });
  const { content } = envelope.output;
  const template = content.template ?? checkedTemplate(await context.storage.getWidget(account.id, slug), 'widget');

  const schema = widgetContentSchemas[template as keyof typeof widgetContentSchemas];
  const validated = surelyFits(size, template) || fitsContentLimit(content) ? validate(schema, withTemplate(content, template), ['body', 'content']) : null;
  if (validated === null || !validated.success) {
    if (content.template !== undefined) checkedTemplate(await context.storage.getWidget(account.id, slug), 'widget', template);
    fail({ kind: 'invalid_widget_content' });
  }

  // Omitted `stale_after` keeps the widget's setting; an explicit null clears it.
  const staleAfter = hasOwn(body, 'stale_after') ? (envelope.output.stale_after ?? null) : undefined;
  // Stored, then delivered (`WidgetWrites` hands each stored write to the fan-out once).
  const result = await context.widgetWrites.write(account.id, slug, { content: validated.output, staleAfter, guard: { tokenHash, template } });
  if (!result.ok) fail(refusalError(result.reason, 'widget'));
  return { content: result.widget.content, stale_after: result.widget.staleAfter };
}

/** What `updateWidget` knows of the body's size: `serializedBound` may cost a scan, so it is read last. */
type BodySize = Pick<SizedJsonBody, 'byteLength' | 'serializedBound'>;

/**
 * True when the content, if valid, is surely within the limit without serialising it.
 * Serialising parsed JSON only ever grows numbers, so content that its template's schema
 * accepts is never larger than the body when the template has no number in it (an
 * invalid one is refused with the same answer whatever its size); otherwise the body's
 * serialised bound must be within the limit.
 */
function surelyFits(size: BodySize | undefined, template: string): boolean {
  if (size?.byteLength === undefined || size.byteLength > WIDGET_CONTENT_MAX_BYTES) return false;
  if (NUMBER_FREE_WIDGET_TEMPLATES.has(template)) return true;
  const bound = size.serializedBound;
  return bound !== undefined && bound <= WIDGET_CONTENT_MAX_BYTES;
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
  return typeof value === 'object' && value !== null && Object.hasOwn(value, key);
}
