import { hash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';

/** A new secret token: 256 bits of randomness, URL-safe, with a readable prefix. */
export function generateToken(prefix: 'tok' | 'dev'): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`;
}

/**
 * Tokens are stored only as SHA-256 hashes. Lookups go by hash, so comparing a
 * presented token never walks a secret byte by byte (no timing oracle).
 */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

/**
 * `hashToken` with a memory of recent answers: phones send the same token with every
 * press, and a SHA-256 is most of a device authentication. Only the hash is remembered;
 * the store is still asked for the token's device every time, so a rotated or removed
 * device token stops working at once.
 */
export function memoizedTokenHasher(entries = 10_000): (token: string) => string {
  const hashes = new LRUCache<string, string>({ max: entries, memoMethod: (token) => hashToken(token) });
  return (token) => hashes.memo(token);
}
