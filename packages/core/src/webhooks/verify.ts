/**
 * The receiver's side of webhook signing. Depends on nothing but WebCrypto
 * (`globalThis.crypto.subtle`) and `TextEncoder`, so it runs unchanged in Node ≥ 20,
 * browsers, Deno, Bun and edge runtimes.
 *
 * It rebuilds `{timestamp}.{METHOD}.{url}.{body_sha256}.{event_id}`, checks the HMAC with
 * `crypto.subtle.verify` (constant time), and refuses timestamps more than `toleranceSec`
 * (default 300) away from now, in either direction.
 */
import { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './header-names.js';

export type WebhookVerificationReason =
  | 'missing_timestamp'
  | 'missing_signature'
  | 'missing_event_id'
  | 'malformed_timestamp'
  | 'malformed_signature'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'signature_mismatch';

/** Why a request was refused. The message never contains the secret or the signature. */
export class WebhookVerificationError extends Error {
  constructor(readonly reason: WebhookVerificationReason) {
    super(`webhook verification failed: ${reason}`);
    this.name = 'WebhookVerificationError';
  }
}

/** A `Headers` object, or a plain record as Node's `IncomingMessage.headers` (any name case). */
export type WebhookHeaders = { get(name: string): string | null } | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  secret: string;
  headers: WebhookHeaders;
  /** The request method (any case). */
  method: string;
  /** The full URL the request was sent to, as the service signed it (e.g. `https://host` + path and query). */
  url: string;
  /** The raw body bytes as received (a string is taken as UTF-8); empty or omitted for `GET`. */
  body?: Uint8Array | ArrayBuffer | string | null;
  /** Largest accepted distance between `X-Svc-Timestamp` and now, in seconds. Default 300. */
  toleranceSec?: number;
  /** Now, in epoch milliseconds. Default `Date.now()`. */
  now?: number;
}

export interface VerifiedWebhook {
  /** The event id (`Idempotency-Key`): de-duplicate on it. */
  eventId: string;
  /** The signing time, Unix seconds. */
  timestamp: number;
}

const encoder = new TextEncoder();

/** Resolves when the request is authentic and fresh; rejects with a `WebhookVerificationError` otherwise. */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<VerifiedWebhook> {
  const timestampText = header(options.headers, TIMESTAMP_HEADER);
  const signatureText = header(options.headers, SIGNATURE_HEADER);
  const eventId = header(options.headers, IDEMPOTENCY_HEADER);
  if (timestampText === undefined) throw new WebhookVerificationError('missing_timestamp');
  if (signatureText === undefined) throw new WebhookVerificationError('missing_signature');
  if (eventId === undefined || eventId === '') throw new WebhookVerificationError('missing_event_id');

  const timestamp = parseTimestamp(timestampText);
  const nowSec = Math.floor((options.now ?? Date.now()) / 1000);
  const tolerance = options.toleranceSec ?? 300;
  if (nowSec - timestamp > tolerance) throw new WebhookVerificationError('timestamp_too_old');
  if (timestamp - nowSec > tolerance) throw new WebhookVerificationError('timestamp_too_new');

  const candidates = parseSignatures(signatureText);
  const body = toBytes(options.body);
  const bodySha256 = toHex(await crypto.subtle.digest('SHA-256', body));
  const signed = encoder.encode(`${timestampText}.${options.method.toUpperCase()}.${options.url}.${bodySha256}.${eventId}`);
  const key = await crypto.subtle.importKey('raw', encoder.encode(options.secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);
  for (const candidate of candidates) {
    if (await crypto.subtle.verify('HMAC', key, candidate, signed)) return { eventId, timestamp };
  }
  throw new WebhookVerificationError('signature_mismatch');
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    // A repeated header is ambiguous: refuse it like a missing one would be refused later.
    return Array.isArray(value) ? (value.length === 1 ? value[0] : undefined) : value;
  }
  return undefined;
}

/** Unix seconds as plain digits: the service never sends anything else. */
function parseTimestamp(text: string): number {
  if (!/^\d{1,12}$/.test(text)) throw new WebhookVerificationError('malformed_timestamp');
  return Number(text);
}

/**
 * The `v1=` entries of the header (several may be listed, separated by spaces or commas,
 * e.g. during a secret rotation). Other versions are ignored; an entry that is not 64
 * lowercase-or-uppercase hex digits makes the header malformed.
 */
function parseSignatures(text: string): Uint8Array<ArrayBuffer>[] {
  const entries = text.split(/[\s,]+/).filter((entry) => entry !== '');
  const v1 = entries.filter((entry) => entry.startsWith('v1=')).map((entry) => entry.slice(3));
  if (v1.length === 0 || v1.some((hex) => !/^[0-9a-fA-F]{64}$/.test(hex))) throw new WebhookVerificationError('malformed_signature');
  return v1.map(fromHex);
}

/** The body as bytes of a plain `ArrayBuffer`: Web Crypto refuses views of a `SharedArrayBuffer`, so one is copied. */
function toBytes(body: VerifyWebhookOptions['body']): Uint8Array<ArrayBuffer> {
  if (body === undefined || body === null) return new Uint8Array(0);
  if (typeof body === 'string') return encoder.encode(body);
  return new Uint8Array(body);
}

function toHex(buffer: ArrayBuffer): string {
  return Array.from(new Uint8Array(buffer), (byte) => byte.toString(16).padStart(2, '0')).join('');
}

function fromHex(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
