import { createHash, randomBytes } from 'node:crypto';

/** A new secret token: 256 bits of randomness, URL-safe, with a readable prefix. */
export function generateToken(prefix: 'tok' | 'dev'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * Tokens are stored only as SHA-256 hashes. Lookups go by hash, so comparing a
 * presented token never walks a secret byte by byte (no timing oracle).
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
