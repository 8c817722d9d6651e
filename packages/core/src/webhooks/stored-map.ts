/**
 * The webhook map as kept in storage: the validated entries, secret included (signing
 * needs it). Storage holds it as opaque JSON, so reading it back checks the shape again
 * and skips an entry that is not one (written by another version, or edited by hand)
 * rather than failing a delivery or a GET.
 */
import * as v from 'valibot';
import { setOwn } from '../schemas/primitives.js';
import { StoredWebhookEntry, type WebhookEntryConfig } from './map-schema.js';

export type StoredWebhookMap = Record<string, WebhookEntryConfig>;

export function readStoredMap(raw: Record<string, unknown>): StoredWebhookMap {
  const map: StoredWebhookMap = {};
  for (const [key, value] of Object.entries(raw)) {
    const parsed = v.safeParse(StoredWebhookEntry, value);
    if (parsed.success) setOwn(map, key, parsed.output);
  }
  return map;
}

/**
 * The entry an event goes to (docs/contract/events-and-webhooks.md#webhook-routing): its action id's, else `*`, else none; an
 * entry that is not one is skipped, as `readStoredMap` skips it. Only the entries looked
 * at are checked: a delivery needs one entry, not the whole map.
 */
export function entryFor(raw: Record<string, unknown>, actionId: string): { key: string; entry: WebhookEntryConfig } | null {
  for (const key of [actionId, '*']) {
    if (!Object.hasOwn(raw, key)) continue;
    const parsed = v.safeParse(StoredWebhookEntry, raw[key]);
    if (parsed.success) return { key, entry: parsed.output };
  }
  return null;
}
