import type { WriteGuard, WriteRefusal } from './records.js';

/**
 * Why a guarded write must not happen, or null when it may: the one order of refusals
 * every store gives (`Storage.setWidgetContent`, `applyActivityUpdate`). The store passes
 * what it sees in the write's atomic step: whether the guard's credential holds there,
 * and the record's template (null when there is no such record).
 */
export function writeRefusal(credentialHolds: boolean, recordTemplate: string | null, guard: WriteGuard | undefined): WriteRefusal | null {
  if (!credentialHolds) return 'credential_changed';
  if (recordTemplate === null) return 'not_found';
  if (guard?.template !== undefined && guard.template !== recordTemplate) return 'template_mismatch';
  return null;
}
