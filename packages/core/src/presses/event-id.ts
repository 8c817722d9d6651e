import { hash } from 'node:crypto';

/** Namespace of Tilecast's press event ids (a fixed random UUID). */
const PRESS_NAMESPACE = 'c0b8e7a2-6f1d-4c3e-9a57-2d8f4b6e1a90';
const NAMESPACE_BYTES = Buffer.from(PRESS_NAMESPACE.replaceAll('-', ''), 'hex');

/**
 * The event id of a press: a UUIDv5 (RFC 9562) of the widget and the phone's
 * `request_id`, so every retry of one press carries the same id on every instance,
 * even after its de-duplication key has expired (reference-deployment §6).
 */
export function pressEventId(owner: string, slug: string, requestId: string): string {
  const name = Buffer.from(JSON.stringify([owner, slug, requestId]), 'utf8');
  // One-shot `hash` (no Hash object): the id is made for every press.
  const digest = hash('sha1', Buffer.concat([NAMESPACE_BYTES, name]), 'buffer');
  digest[6] = (digest[6]! & 0x0f) | 0x50; // version 5
  digest[8] = (digest[8]! & 0x3f) | 0x80; // RFC 9562 variant
  const hex = digest.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
