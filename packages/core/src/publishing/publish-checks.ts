/** What `PATCH /widget` and `PATCH /activity` check alike: the stored template, the template filled in, the store's refusals. */
import { fail, type ServiceError } from '../errors.js';
import type { ActivityUpdateResult } from '../storage/records.js';

type Refusal = Extract<ActivityUpdateResult, { ok: false }>['reason'];

/** The answer to a store's refusal of a publisher write (the guard's refusals included). */
export function refusalError(reason: Refusal, resource: 'widget' | 'activity'): ServiceError {
  switch (reason) {
    case 'credential_changed':
      return { kind: 'unauthorized' }; // confirmed or corrected by a fresh lookup (PublisherCredentials)
    case 'not_found':
      return { kind: resource === 'widget' ? 'widget_not_found' : 'activity_not_found' };
    case 'template_mismatch':
      return { kind: 'template_mismatch' };
    case 'quota_exceeded':
      return { kind: 'too_many_ongoing_activities' };
  }
}

/** A looked-up record's template, or the lookup's refusal: 404 when missing, 400 when not `expected`. */
export function checkedTemplate(record: { template: string } | null, resource: 'widget' | 'activity', expected?: string): string {
  if (record === null) fail(refusalError('not_found', resource));
  if (expected !== undefined && record.template !== expected) fail({ kind: 'template_mismatch' });
  return record.template;
}

/** The content as its template's schema checks it: with the resource's template filled in when the body left it out. */
export function withTemplate<T extends { template?: string }>(content: T, template: string): T {
  return content.template === template ? content : { ...content, template };
}
