import type { HeaderValue } from '../http/types.js';

// Visible ASCII without spaces: what a token may contain. Anything else is malformed.
const CREDENTIALS = /^[\x21-\x7e]+$/;

/**
 * Reads `<Scheme> <credentials>` from an Authorization header exactly: the scheme is
 * case-insensitive, followed by one space and non-empty credentials. A missing,
 * repeated or malformed header gives null.
 */
export function readCredentials(header: HeaderValue, scheme: string): string | null {
  if (typeof header !== 'string') return null;
  const space = header.indexOf(' ');
  if (space !== scheme.length) return null;
  if (header.slice(0, space).toLowerCase() !== scheme.toLowerCase()) return null;
  const credentials = header.slice(space + 1);
  return CREDENTIALS.test(credentials) ? credentials : null;
}
