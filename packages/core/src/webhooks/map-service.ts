/**
 * `PUT`, `GET` and `DELETE /widget/{slug}/webhooks` after authentication, in the order of
 * docs/contract/events-and-webhooks.md#webhook-map-statuses: body (422 field errors) → widget lookup (404 Widget not found).
 */
import type { TilecastContext } from '../context.js';
import { fail } from '../errors.js';
import { validate } from '../schemas/validate.js';
import type { AccountRecord } from '../storage/records.js';
import { webhookMapSchema } from './map-schema.js';
import { redactMap, type RedactedEntry } from './redact.js';
import { readStoredMap, type StoredWebhookMap } from './stored-map.js';

export interface WebhookMapResponse {
  webhooks: Record<string, RedactedEntry>;
}

/** Replaces the whole map and returns it redacted. */
export async function putWebhookMap(context: TilecastContext, account: AccountRecord, slug: string, body: unknown): Promise<WebhookMapResponse> {
  const result = validate(webhookMapSchema(context.webhooks), body, ['body']);
  if (!result.success) fail({ kind: 'validation', errors: result.errors });
  const map: StoredWebhookMap = result.output.webhooks;
  if (!(await context.storage.setWebhookMap(account.id, slug, map))) fail({ kind: 'widget_not_found' });
  return redactMap(map, await context.storage.getWebhookOutcomes(account.id, slug));
}

/** The map, redacted, with the delivery timestamps of each entry. */
export async function getWebhookMap(context: TilecastContext, account: AccountRecord, slug: string): Promise<WebhookMapResponse> {
  const raw = await context.storage.getWebhookMap(account.id, slug);
  if (raw === null) fail({ kind: 'widget_not_found' });
  return redactMap(readStoredMap(raw), await context.storage.getWebhookOutcomes(account.id, slug));
}

/** Removes every entry. */
export async function deleteWebhookMap(context: TilecastContext, account: AccountRecord, slug: string): Promise<void> {
  if (!(await context.storage.setWebhookMap(account.id, slug, {}))) fail({ kind: 'widget_not_found' });
}
