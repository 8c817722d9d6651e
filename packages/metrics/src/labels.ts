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

/** The classes of dead-letter reasons a label may name; any other reason is `other`. */
const DEAD_LETTER_CLASSES = new Set(['refused', 'dropped', 'failed']);

/**
 * A dead letter's reason as a label: its class, the word before the colon (`refused:
 * BadTopic` → `refused`), else `other`. Only the class: what follows the colon is the
 * transport's own text (a push service's answer, an error message) with no bound on its
 * values, so as a label it could grow the series without limit. The whole reason stays in
 * the dead letter, listed by `tilecast deliveries --failed`.
 */
export function deadLetterReasonLabel(reason: string): string {
  const word = /^([a-z_]+):/.exec(reason)?.[1];
  return word !== undefined && DEAD_LETTER_CLASSES.has(word) ? word : OTHER;
}
