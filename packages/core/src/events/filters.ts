import * as v from 'valibot';
import { fail } from '../errors.js';
import type { StoredEvent } from '../storage/records.js';

/** Subject kinds `GET /events` knows (docs/contract/events-and-webhooks.md#events-subject-filter). */
export const SUBJECT_KINDS = ['widget', 'activity'] as const;

/**
 * A `subject` filter: `<kind>/<slug>`, a known kind and a slug with no `/`, not empty. The
 * filter's check, and its schema in `/openapi.json`.
 */
export const SubjectFilter = v.pipe(
  v.string(),
  v.regex(new RegExp(`^(?:${SUBJECT_KINDS.join('|')})/[^/]+$`)),
  v.description('`<kind>/<slug>`: `widget/lights`, `activity/build`.'),
);

const NONE: ReadonlySet<string> = new Set();

export interface EventFilters {
  /** Empty: every type. Unknown types are not an error; they match nothing. */
  types: ReadonlySet<string>;
  /** Empty: every subject. Each is `<kind>/<slug>`. */
  subjects: ReadonlySet<string>;
}

/** Reads the repeatable `types` and `subject` query parameters; a bad subject is a `422`. */
export function parseEventFilters(query: URLSearchParams): EventFilters {
  const subjects = query.getAll('subject');
  for (const subject of subjects) {
    if (!v.is(SubjectFilter, subject)) fail({ kind: 'invalid_subject_filter', value: subject });
  }
  const types = query.getAll('types');
  // Most streams have no filter: they share one empty set instead of two each.
  return { types: types.length > 0 ? new Set(types) : NONE, subjects: subjects.length > 0 ? new Set(subjects) : NONE };
}

export function matchesFilters(event: Pick<StoredEvent, 'type' | 'subject'>, filters: EventFilters): boolean {
  if (filters.types.size > 0 && !filters.types.has(event.type)) return false;
  if (filters.subjects.size > 0 && !filters.subjects.has(event.subject)) return false;
  return true;
}
