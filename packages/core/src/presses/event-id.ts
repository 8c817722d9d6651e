import { hash } from 'node:crypto';

/** Namespace of Tilecast's press event ids (a fixed random UUID). */
const PRESS_NAMESPACE = 'c0b8e7a2-6f1d-4c3e-9a57-2d8f4b6e1a90';
const NAMESPACE_BYTES = Buffer.from(PRESS_NAMESPACE.replaceAll('-', ''), 'hex');

/**
 * The event id of a press: a UUIDv5 (RFC 9562) of the widget and the phone's
 * `request_id`, so every retry of one press carries the same id on every instance,
 * even after its de-duplication key has expired (docs/contract/events-and-webhooks.md#event-id, docs/contract/device-api.md#press-retry-window).
 */
export function pressEventId(owner: string, slug: string, requestId: string): string {
  return pressEventIdOfKey(pressKey(owner, slug, requestId));
}

/** A press's identity, `["<owner>","<slug>","<request_id>"]`: its de-duplication key and the name its event id hashes. */
export function pressKey(owner: string, slug: string, requestId: string): string {
  return JSON.stringify([owner, slug, requestId]);
}

/** `pressEventId` from a `pressKey` already made (a press needs both). */
export function pressEventIdOfKey(key: string): string {
  // Namespace and name in one buffer, hashed one-shot (no Hash object): this runs for every press.
  const bytes = Buffer.allocUnsafe(NAMESPACE_BYTES.length + Buffer.byteLength(key, 'utf8'));
  NAMESPACE_BYTES.copy(bytes, 0);
  bytes.write(key, NAMESPACE_BYTES.length, 'utf8');
  const digest = hash('sha1', bytes, 'buffer');
  digest[6] = (digest[6]! & 0x0f) | 0x50; // version 5
  digest[8] = (digest[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = digest.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
