import type { HeaderValue } from '../http/types.js';

/** Stream positions on the wire: `u:<n>`, opaque to clients. */
export const formatPosition = (position: number): string => `u:${position}`;

const POSITION = /^u:(0|[1-9][0-9]{0,15})$/;

/**
 * Where a stream starts reading (events after this position):
 * - no `Last-Event-ID`: the account's current end (nothing is replayed);
 * - a position this account has issued: right after it;
 * - anything else (malformed, repeated, from the future or another account's numbering):
 *   unrecognised, so every unexpired event is replayed.
 */
export function startPosition(header: HeaderValue, lastPosition: number): number {
  if (header === undefined) return lastPosition;
  if (typeof header !== 'string') return 0;
  const match = POSITION.exec(header);
  if (!match) return 0;
  const position = Number(match[1]);
  return Number.isSafeInteger(position) && position <= lastPosition ? position : 0;
}
