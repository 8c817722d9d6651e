/**
 * Request signing (docs/contract/events-and-webhooks.md#webhook-signing):
 * `X-Svc-Signature: v1=<hex HMAC-SHA256(secret, "{timestamp}.{METHOD}.{url}.{body_sha256}.{event_id}")>`.
 * The receiver side is `verify.ts` (WebCrypto only, so browsers and edge runtimes can use it).
 */
import { createHash, createHmac } from 'node:crypto';
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from './header-names.js';

export interface SignedParts {
  /** Unix seconds. */
  timestamp: number;
  method: string;
  /** The exact URL called, placeholders filled. */
  url: string;
  /** The body bytes as sent; empty for `GET`. */
  body: Uint8Array | string;
  eventId: string;
}

/** `{timestamp}.{METHOD}.{url}.{body_sha256}.{event_id}`. */
export function signedString(parts: SignedParts): string {
  const bodySha256 = createHash('sha256').update(parts.body).digest('hex');
  return `${parts.timestamp}.${parts.method.toUpperCase()}.${parts.url}.${bodySha256}.${parts.eventId}`;
}

/** The `X-Svc-Signature` value: `v1=` and the lowercase hex HMAC-SHA256. */
export function signatureHeader(secret: string, parts: SignedParts): string {
  return `v1=${createHmac('sha256', secret).update(signedString(parts)).digest('hex')}`;
}

/** Both signing headers, or none when the entry has no secret. */
export function signingHeaders(secret: string | null, parts: SignedParts): Record<string, string> {
  if (secret === null) return {};
  return { [TIMESTAMP_HEADER]: String(parts.timestamp), [SIGNATURE_HEADER]: signatureHeader(secret, parts) };
}
