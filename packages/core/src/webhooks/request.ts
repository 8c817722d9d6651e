/**
 * The HTTP request of one attempt, built afresh for every attempt (a retry is signed
 * again with a new timestamp and keeps the `Idempotency-Key`).
 */
import { isPlainObject } from '../schemas/primitives.js';
import { checkWebhookUrl, type AddressPolicy } from './address-guard.js';
import type { OutgoingRequest } from './attempt.js';
import { IDEMPOTENCY_HEADER } from './header-names.js';
import type { WebhookEntryConfig } from './map-schema.js';
import { signingHeaders } from './signing.js';
import { fillTemplate, fillText, placeholderValues, type ActionEnvelope } from './template.js';

export const USER_AGENT = 'Tilecast-Webhooks/1';

/** `null`: the filled URL breaks the URL rules (a blocked destination, final). */
export function buildRequest(
  entry: WebhookEntryConfig,
  envelope: ActionEnvelope,
  raw: Record<string, unknown>,
  policy: AddressPolicy,
  now: number,
): OutgoingRequest | null {
  const values = placeholderValues(envelope, raw);
  const checked = checkWebhookUrl(fillText(entry.url, values), policy);
  if (!checked.ok) return null;
  // The serialised URL is what goes on the wire (request line) and what is signed.
  const url = checked.url.href;
  // No template: the envelope as the event log holds it, serialised once (`{{event_json}}`).
  const body = entry.method === 'GET' ? null : entry.body === null ? values.event_json : JSON.stringify(fillTemplate(entry.body, values));

  const headers = new Map<string, [string, string]>();
  const set = (name: string, value: string): void => void headers.set(name.toLowerCase(), [name, value]);
  // The service's own headers are set last, so an owner's header of the same name gives way
  // (docs/contract/events-and-webhooks.md#webhook-service-headers-win); the owner may name
  // its own User-Agent (docs/contract/events-and-webhooks.md#webhook-user-agent).
  for (const [name, value] of Object.entries(entry.headers)) set(name, value);
  set('User-Agent', headers.get('user-agent')?.[1] ?? USER_AGENT);
  set(IDEMPOTENCY_HEADER, envelope.id);
  if (body !== null) set('Content-Type', 'application/json');
  else headers.delete('content-type');
  const signed = signingHeaders(entry.secret, { timestamp: Math.floor(now / 1000), method: entry.method, url, body: body ?? '', eventId: envelope.id });
  for (const [name, value] of Object.entries(signed)) set(name, value);

  return { url, method: entry.method, headers: Object.fromEntries(headers.values()), body };
}

/** The `widget.action.v1` envelope fields delivery needs, or null when the event is not one. */
export function readEnvelope(raw: Record<string, unknown>): ActionEnvelope | null {
  const { id, request_id: requestId, subject, data } = raw;
  if (typeof id !== 'string' || typeof requestId !== 'string') return null;
  if (!isPlainObject(subject) || typeof subject.kind !== 'string' || typeof subject.slug !== 'string') return null;
  if (!isPlainObject(data) || typeof data.action !== 'string' || typeof data.kind !== 'string') return null;
  const value = typeof data.value === 'boolean' ? { value: data.value } : {};
  return { id, request_id: requestId, subject: { kind: subject.kind, slug: subject.slug }, data: { action: data.action, kind: data.kind, ...value } };
}
