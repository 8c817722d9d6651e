/**
 * Label values are chosen here so that none is unbounded and none is a secret: routes are
 * the core's patterns, methods one of a fixed list, statuses three digits, and everything
 * else a value of a small union typed in `@tilecast/core`'s observer.
 */

/** The methods a label may name; any other becomes `OTHER`. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

const OTHER = 'other';

/** A request's method as a label: a standard method, or `other` (a client may send any token). */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : OTHER;
}

/** A status as a label: `100`–`599`, else `other`. */
export function statusLabel(status: number): string {
  return Number.isInteger(status) && status >= 100 && status <= 599 ? String(status) : OTHER;
}

/** A transport's name as a label: a short `[a-z0-9_]` name (what `DeviceTransport.name` is meant to be), else `other`. */
export function transportLabel(name: string): string {
  return /^[a-z][a-z0-9_]{0,31}$/.test(name) ? name : OTHER;
}
