/**
 * Placeholders of webhook URLs and body templates (docs/contract/events-and-webhooks.md#webhook-placeholders).
 *
 * - A placeholder always produces text: `{{value}}` is the string `true`, never a boolean.
 * - Filling is one pass over the template: text a placeholder inserts is never scanned
 *   again, so a value containing `{{other}}` stays literal.
 * - In a body, placeholders are filled inside JSON string values (object keys are kept as
 *   written); serialising the filled value escapes whatever was inserted.
 * - In a URL they are inserted as they are, without URL encoding (docs/contract/events-and-webhooks.md#placeholder-url-unencoded); the
 *   filled URL then goes through the URL checks again.
 */

export const PLACEHOLDER_NAMES = ['action', 'kind', 'value', 'slug', 'subject', 'event_id', 'request_id', 'event_json'] as const;
export type PlaceholderName = (typeof PLACEHOLDER_NAMES)[number];
export type PlaceholderValues = Record<PlaceholderName, string>;

const KNOWN = new Set<string>(PLACEHOLDER_NAMES);
// Anything written `{{...}}` (without braces inside) is a placeholder, known or not.
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;

/** True when every `{{...}}` in `text` is a known placeholder. */
export function hasOnlyKnownPlaceholders(text: string): boolean {
  for (const match of text.matchAll(PLACEHOLDER)) if (!KNOWN.has(match[1]!)) return false;
  return true;
}

/** True when every string value inside a JSON template has only known placeholders. Iterative. */
export function templateHasOnlyKnownPlaceholders(template: unknown): boolean {
  const stack: unknown[] = [template];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value === 'string') {
      if (!hasOnlyKnownPlaceholders(value)) return false;
    } else if (Array.isArray(value)) {
      stack.push(...value);
    } else if (value !== null && typeof value === 'object') {
      stack.push(...Object.values(value));
    }
  }
  return true;
}

/** Every known placeholder replaced by `sample` (used to check a URL's shape at configuration time). */
export function fillWithSample(text: string, sample: string): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (KNOWN.has(name) ? sample : whole));
}

/** One pass: inserted text is never expanded again. Unknown placeholders (refused at PUT) stay as written. */
export function fillText(text: string, values: PlaceholderValues): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (KNOWN.has(name) ? values[name as PlaceholderName] : whole));
}

/** A copy of a JSON template with every string value filled. Keys are kept as written. */
export function fillTemplate(template: unknown, values: PlaceholderValues): unknown {
  if (typeof template === 'string') return fillText(template, values);
  if (Array.isArray(template)) return template.map((item) => fillTemplate(item, values));
  if (template !== null && typeof template === 'object') {
    // Object.fromEntries defines own properties, so a `__proto__` key stays a plain key.
    return Object.fromEntries(Object.entries(template).map(([key, item]) => [key, fillTemplate(item, values)]));
  }
  return template;
}

/** The `widget.action.v1` envelope (docs/contract/events-and-webhooks.md#event-envelope), as the dispatcher reads it. */
export interface ActionEnvelope {
  id: string;
  request_id: string;
  subject: { kind: string; slug: string };
  data: { action: string; kind: string; value?: boolean };
}

/**
 * The placeholder table (docs/contract/events-and-webhooks.md#webhook-placeholders), for one event. `event_json` is serialised when first
 * read, and once: most entries send the envelope itself, which is that same text.
 */
export function placeholderValues(envelope: ActionEnvelope, raw: unknown): PlaceholderValues {
  const { data, subject } = envelope;
  let json: string | undefined;
  return {
    action: data.action,
    kind: data.kind,
    value: typeof data.value === 'boolean' ? String(data.value) : '',
    slug: subject.slug,
    subject: `${subject.kind}/${subject.slug}`,
    event_id: envelope.id,
    request_id: envelope.request_id,
    get event_json() {
      return (json ??= JSON.stringify(raw));
    },
  };
}
