/**
 * The webhook map as the owner sees it (docs/contract/events-and-webhooks.md#webhook-map-response, docs/contract/events-and-webhooks.md#webhook-redaction): the secret is
 * never returned, header values are `***`, values in the URL's query string are `***`.
 */
import { setOwn } from '../schemas/primitives.js';
import type { WebhookEntryConfig } from './map-schema.js';
import type { StoredWebhookMap } from './stored-map.js';

export const REDACTED = '***';

export interface RedactedEntry {
  config: { url: string; method: string; headers: Record<string, string>; body: unknown };
  last_success_at: string | null;
  last_failure_at: string | null;
}

export type WebhookOutcomes = Record<string, { lastSuccessAt: string | null; lastFailureAt: string | null }>;

/** `{webhooks: {<key>: {config, last_success_at, last_failure_at}}}`. */
export function redactMap(map: StoredWebhookMap, outcomes: WebhookOutcomes): { webhooks: Record<string, RedactedEntry> } {
  const webhooks: Record<string, RedactedEntry> = {};
  for (const [key, entry] of Object.entries(map)) {
    const times = Object.hasOwn(outcomes, key) ? outcomes[key]! : undefined;
    setOwn(webhooks, key, { config: redactConfig(entry), last_success_at: times?.lastSuccessAt ?? null, last_failure_at: times?.lastFailureAt ?? null });
  }
  return { webhooks };
}

function redactConfig(entry: WebhookEntryConfig): RedactedEntry['config'] {
  return {
    url: redactUrl(entry.url),
    method: entry.method,
    headers: Object.fromEntries(Object.keys(entry.headers).map((name) => [name, REDACTED])),
    body: entry.body ?? null,
  };
}

/**
 * Keeps scheme, host, path and parameter names; every query value (and a bare parameter,
 * which is all value) becomes `***`. Works on the text as configured, so placeholders in
 * the path survive. A fragment is never sent, but may hold a token too: it is masked.
 */
export function redactUrl(url: string): string {
  const hash = url.indexOf('#');
  const withoutFragment = hash === -1 ? url : url.slice(0, hash);
  const fragment = hash === -1 ? '' : `#${REDACTED}`;
  const mark = withoutFragment.indexOf('?');
  if (mark === -1) return withoutFragment + fragment;
  const query = withoutFragment
    .slice(mark + 1)
    .split('&')
    .map((part) => {
      if (part === '') return part;
      const equals = part.indexOf('=');
      return equals === -1 ? REDACTED : `${part.slice(0, equals)}=${REDACTED}`;
    })
    .join('&');
  return `${withoutFragment.slice(0, mark)}?${query}${fragment}`;
}
