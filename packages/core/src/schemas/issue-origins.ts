import type * as v from 'valibot';

/**
 * Issues of a nested `v.safeParse` that a schema re-added at its own path (`ownRecord`):
 * each re-added issue → the original, so `toFieldErrors` describes the original (its type,
 * requirement, input) at the re-added issue's full path.
 */
const origins = new WeakMap<object, v.BaseIssue<unknown>>();

export function noteOrigin(issue: object, origin: v.BaseIssue<unknown>): void {
  origins.set(issue, origin);
}

/** The issue a record forwarded (followed through nested records), or `issue` itself. */
export function forwardedIssue(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown> {
  let inner = issue;
  for (let next = origins.get(inner); next !== undefined; next = origins.get(inner)) inner = next;
  return inner;
}
