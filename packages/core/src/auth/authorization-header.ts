import type { HeaderValue } from '../http/types.js';

// Visible ASCII without spaces: what a token may contain. Anything else is malformed
// (which also keeps a NUL or a lone surrogate from ever reaching a token lookup):
// docs/contract/publisher-api.md#authorization-credential-characters.
const CREDENTIALS = /^[\x21-\x7e]+$/;

/**
 * The one Authorization header of a request, or undefined when there is none or more than
 * one: two `Authorization` headers are a `401` (docs/contract/publisher-api.md#authorization-header-repeated), never "the first
 * one wins". Adapters hand repeated headers over as an array; an array of one is one header.
 */
export function soleAuthorization(header: HeaderValue): string | undefined {
  if (typeof header === 'string') return header;
  return header !== undefined && header.length === 1 ? header[0] : undefined;
}

/**
 * Reads `<Scheme> <credentials>` from an Authorization header exactly: the scheme is
 * case-insensitive, followed by one space and non-empty credentials. A missing,
 * repeated or malformed header gives null.
 */
export function readCredentials(header: HeaderValue, scheme: string): string | null {
  const value = soleAuthorization(header);
  if (value === undefined) return null;
  const space = value.indexOf(' ');
  if (space !== scheme.length) return null;
  if (value.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return null;
  const credentials = value.slice(space + 1);
  return CREDENTIALS.test(credentials) ? credentials : null;
}
