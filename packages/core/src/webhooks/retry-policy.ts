/**
 * When a failed attempt is retried (docs/contract/events-and-webhooks.md#webhook-attempts, docs/contract/events-and-webhooks.md#webhook-transient-failures,
 * docs/contract/events-and-webhooks.md#webhook-final-answers, docs/contract/events-and-webhooks.md#webhook-retry-window): at most two attempts; only transient failures; a retry starts
 * only when a whole attempt still fits before `expires_at`, after any honoured
 * `Retry-After`.
 */
import { ATTEMPT_TIMEOUT_MS, type AttemptResult } from './attempt.js';

export const MAX_ATTEMPTS = 2;

export function isSuccess(result: AttemptResult): result is Extract<AttemptResult, { kind: 'response' }> {
  return result.kind === 'response' && result.status >= 200 && result.status <= 299;
}

/**
 * Network errors, timeouts, `408`, `425`, `429` and `5xx` except `501` and `505`. Everything
 * else is final: other `4xx`, `501`, `505`, redirects (never followed), other statuses, and
 * a destination the address guard refused.
 */
export function isTransient(result: AttemptResult): boolean {
  switch (result.kind) {
    case 'network':
    case 'timeout':
      return true;
    case 'blocked':
      return false;
    case 'response': {
      const { status } = result;
      if (status === 408 || status === 425 || status === 429) return true;
      return status >= 500 && status <= 599 && status !== 501 && status !== 505;
    }
  }
}

/**
 * `Retry-After` in milliseconds from `now`: delay-seconds or an HTTP date (a date in the
 * past is 0). Anything else is treated as absent (`null`).
 */
export function parseRetryAfter(value: string | null, now: number): number | null {
  if (value === null) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  // IMF-fixdate (and the obsolete forms Date.parse also reads) always names a weekday or month.
  if (!/[A-Za-z]{3}/.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before the next attempt, or `null` for no retry. Only `429` and `503` carry a
 * `Retry-After` worth honouring; without one the retry starts at once.
 */
export function retryDelay(result: AttemptResult, attempt: number, now: number, expiresAt: number): number | null {
  if (attempt >= MAX_ATTEMPTS || !isTransient(result)) return null;
  const honoured = result.kind === 'response' && (result.status === 429 || result.status === 503) ? parseRetryAfter(result.retryAfter, now) : null;
  const wait = honoured ?? 0;
  return now + wait + ATTEMPT_TIMEOUT_MS <= expiresAt ? wait : null;
}
