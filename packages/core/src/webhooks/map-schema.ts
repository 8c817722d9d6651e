/**
 * The body of `PUT /widget/{slug}/webhooks` and the shapes of the redacted map
 * (docs/contract/events-and-webhooks.md#webhook-map-put, docs/contract/events-and-webhooks.md#webhook-entry, docs/contract/events-and-webhooks.md#webhook-map-keys,
 * docs/contract/events-and-webhooks.md#webhook-map-response). Also used for `/openapi.json`.
 *
 * No rule's message quotes the input: a refused secret, header value or URL (whose query
 * may hold a token) never comes back in a 422.
 */
import * as v from 'valibot';
import { MSG, pydantic, valueError } from '../schemas/messages.js';
import { objectItem, orNull, strict } from '../schemas/primitives.js';
import { ownRecord } from '../schemas/record.js';
import { ACTION_ID_PATTERN, withDefault } from '../schemas/fields.js';
import { checkWebhookUrl, type AddressPolicy, type UrlRefusal } from './address-guard.js';
import { fillWithSample, hasOnlyKnownPlaceholders, PLACEHOLDER_NAMES, templateHasOnlyKnownPlaceholders } from './template.js';

export const WEBHOOK_MAP_MAX_ENTRIES = 9;
export const WEBHOOK_HEADERS_MAX_BYTES = 1024;
export const WEBHOOK_BODY_MAX_BYTES = 2048;
/** Tilecast's bounds of an entry's `url` and `secret` (docs/contract/events-and-webhooks.md#webhook-entry-bounds). */
export const WEBHOOK_URL_MAX_LENGTH = 2048;
export const WEBHOOK_SECRET_MAX_LENGTH = 256;
export const WEBHOOK_METHODS = ['POST', 'PUT', 'PATCH', 'GET'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];

/** Keys: an action id (the switchboard pattern) or `*`. */
export const WEBHOOK_KEY_PATTERN = new RegExp(`^(?:\\*|${ACTION_ID_PATTERN.source.slice(1, -1)})$`);

/** The placeholders, as the descriptions list them. */
const PLACEHOLDER_LIST = PLACEHOLDER_NAMES.map((name) => `\`{{${name}}}\``).join(', ');

/** Header names the owner may not set (compared case-insensitively), plus any `X-Svc-*`. */
export const REFUSED_HEADER_NAMES = ['host', 'content-length', 'connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'proxy-authorization'] as const;

const MESSAGES = {
  key: valueError("keys must be an action id (^[A-Za-z0-9_-]{1,32}$) or '*'"),
  tooMany: pydantic('too_long', `Dictionary should have at most ${WEBHOOK_MAP_MAX_ENTRIES} items after validation`),
  url: {
    scheme: MSG.httpsScheme,
    invalid: pydantic('url_parsing', 'Input should be a valid URL'),
    port: valueError('the URL may not name a port other than 443'),
    credentials: valueError('the URL may not contain credentials'),
    host: valueError('the URL host must be a public address'),
  } satisfies Record<UrlRefusal, string>,
  placeholder: valueError('unknown placeholder'),
  headerName: valueError('invalid header name'),
  refusedHeader: valueError('this header name may not be set'),
  duplicateHeader: valueError('header names must be unique regardless of case'),
  headerValue: valueError('header values may not contain CR, LF, NUL or other control characters'),
  headersSize: valueError(`headers may hold at most ${WEBHOOK_HEADERS_MAX_BYTES} bytes in total`),
  bodySize: valueError(`the body template may hold at most ${WEBHOOK_BODY_MAX_BYTES} bytes of JSON`),
} as const;

// RFC 9110 token characters.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
// What Node's HTTP client accepts in a value: tab, visible ASCII and Latin-1 (no CR, LF, NUL, other controls).
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

function isRefusedHeaderName(name: string): boolean {
  const lower = name.toLowerCase();
  return (REFUSED_HEADER_NAMES as readonly string[]).includes(lower) || lower.startsWith('x-svc-');
}

/** Bytes the headers take: UTF-8 of every name and value (separators not counted). */
export function headersByteSize(headers: Record<string, string>): number {
  let total = 0;
  for (const [name, value] of Object.entries(headers)) total += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(value, 'utf8');
  return total;
}

/** Compact UTF-8 JSON size of a body template (null when it cannot be serialised). */
export function templateByteSize(template: unknown): number | null {
  try {
    return Buffer.byteLength(JSON.stringify(template), 'utf8');
  } catch {
    return null;
  }
}

/**
 * Once every name and value has its syntax (the record's key and value schemas, which
 * `/openapi.json` shows as patterns): one error per header at `[..., name]`, a refused name
 * or a case duplicate; then the total (docs/contract/events-and-webhooks.md#webhook-header-rules).
 */
function checkHeaders({ dataset, addIssue }: v.RawCheckContext<Record<string, string>>): void {
  if (!dataset.typed) return;
  const headers = dataset.value;
  const seen = new Set<string>();
  for (const name of Object.keys(headers)) {
    const message = isRefusedHeaderName(name) ? MESSAGES.refusedHeader : seen.has(name.toLowerCase()) ? MESSAGES.duplicateHeader : undefined;
    seen.add(name.toLowerCase());
    if (message !== undefined) addIssue({ message, path: [objectItem(headers, name)] });
  }
  if (headersByteSize(headers) > WEBHOOK_HEADERS_MAX_BYTES) addIssue({ message: MESSAGES.headersSize });
}

function webhookUrl(policy: AddressPolicy) {
  return v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(WEBHOOK_URL_MAX_LENGTH),
    v.startsWith('https://', MESSAGES.url.scheme),
    v.check(hasOnlyKnownPlaceholders, MESSAGES.placeholder),
    v.rawCheck<string>(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      // Placeholders are filled per event; their shape is checked with a neutral stand-in now
      // and the filled URL is checked again before every attempt.
      const verdict = checkWebhookUrl(fillWithSample(dataset.value, 'x'), policy);
      if (!verdict.ok) addIssue({ message: MESSAGES.url[verdict.reason] });
    }),
    // No `format: uri` in the document: with placeholders (`{{action}}`) it is a URI template, not a URI.
    v.description(
      `\`https://\` URL; no port other than 443, no credentials, a public host. May contain the placeholders ${PLACEHOLDER_LIST}, and no other \`{{...}}\`.`,
    ),
  );
}

const webhookHeaders = ownRecord(
  v.pipe(v.string(), v.regex(HEADER_NAME, MESSAGES.headerName)),
  v.pipe(v.string(), v.regex(HEADER_VALUE, MESSAGES.headerValue)),
  v.rawCheck(checkHeaders),
  v.description(
    `Extra request headers, at most ${WEBHOOK_HEADERS_MAX_BYTES} bytes in total (UTF-8 of every name and value). Names are unique ` +
      `regardless of case, and none is ${REFUSED_HEADER_NAMES.map((name) => `\`${name}\``).join(', ')} or \`x-svc-*\`, in any case.`,
  ),
);

/** Any JSON; strings may contain placeholders. Absent or null: the event envelope is sent. */
const webhookBody = v.nullish(
  v.pipe(
    v.unknown(),
    v.check((template) => (templateByteSize(template) ?? Infinity) <= WEBHOOK_BODY_MAX_BYTES, MESSAGES.bodySize),
    v.check(templateHasOnlyKnownPlaceholders, MESSAGES.placeholder),
    v.description(
      `JSON template of at most ${WEBHOOK_BODY_MAX_BYTES} bytes (compact UTF-8) whose strings may contain the placeholders ${PLACEHOLDER_LIST}, and no other \`{{...}}\`.`,
    ),
  ),
  null,
);

function webhookEntry(policy: AddressPolicy) {
  return strict({
    url: webhookUrl(policy),
    method: withDefault(v.picklist(WEBHOOK_METHODS), 'POST'),
    headers: v.nullish(webhookHeaders, () => ({})),
    body: webhookBody,
    secret: orNull(v.pipe(v.string(), v.minLength(1), v.maxLength(WEBHOOK_SECRET_MAX_LENGTH), v.description('Turns on request signing. Never returned.'))),
  });
}

function webhookMapRequest(policy: AddressPolicy) {
  const entry = webhookEntry(policy);
  return {
    entry,
    map: strict({
      webhooks: ownRecord(v.pipe(v.string(), v.regex(WEBHOOK_KEY_PATTERN, MESSAGES.key)), entry, v.maxEntries(WEBHOOK_MAP_MAX_ENTRIES, MESSAGES.tooMany)),
    }),
  };
}

const publicOnly = webhookMapRequest({ allowPrivateNetworks: false });
const privateAllowed = webhookMapRequest({ allowPrivateNetworks: true });

/** The request schemas as used in production (and in `/openapi.json`). */
export const WebhookEntryInput = publicOnly.entry;
export const WebhookMapInput = publicOnly.map;

/**
 * An entry as read back from storage: the PUT already applied the deployment's host
 * policy, and delivery applies it again to the filled URL, so only the shape is checked.
 */
export const StoredWebhookEntry = privateAllowed.entry;

/** The request schema under `policy` (test deployments may allow private targets). */
export function webhookMapSchema(policy: AddressPolicy): typeof WebhookMapInput {
  return policy.allowPrivateNetworks ? privateAllowed.map : publicOnly.map;
}

export type WebhookMapRequest = v.InferOutput<typeof WebhookMapInput>;
export type WebhookEntryConfig = v.InferOutput<typeof WebhookEntryInput>;

// ── responses (documentation schemas; the values come from `redact.ts`) ─────────────

export const WebhookConfigOutput = v.object({
  url: v.pipe(v.string(), v.description('The URL with every query value shown as `***`.')),
  method: v.picklist(WEBHOOK_METHODS),
  headers: v.pipe(v.record(v.string(), v.literal('***')), v.description('Header names; every value shown as `***`.')),
  body: v.pipe(v.nullable(v.unknown()), v.description('The body template, or null when the envelope is sent.')),
});

export const WebhookEntryStatus = v.object({
  config: WebhookConfigOutput,
  last_success_at: v.nullable(v.pipe(v.string(), v.metadata({ format: 'date-time' }))),
  last_failure_at: v.nullable(v.pipe(v.string(), v.metadata({ format: 'date-time' }))),
});

export const WebhookMapOutput = v.object({ webhooks: v.record(v.string(), WebhookEntryStatus) });
