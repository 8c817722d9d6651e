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

/** The entry an event goes to: its action id's, else `*`, else none (spec "Webhooks"). */
export function entryFor(map: StoredWebhookMap, actionId: string): { key: string; entry: WebhookEntryConfig } | null {
  if (Object.hasOwn(map, actionId)) return { key: actionId, entry: map[actionId]! };
  if (Object.hasOwn(map, '*')) return { key: '*', entry: map['*']! };
  return null;
}
