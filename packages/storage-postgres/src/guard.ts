import type { WriteGuard, WriteRefusal } from '@tilecast/core';
import type { Tables } from './db.js';

/**
 * SQL that is true when the guard's credential still holds: no token hash given, or the
 * account (`$account`) holds it with an active subscription. Placed in the write's own
 * statement, so a token rotated a moment before is refused by that very write.
 */
export const credentialHolds = (t: Tables, account: string, tokenHash: string): string =>
  `(${tokenHash}::text IS NULL OR EXISTS (SELECT 1 FROM ${t.accounts} a
     WHERE a.id = ${account} AND a.token_hash = ${tokenHash} AND a.subscription = 'active'))`;

/** Why a guarded write found nothing to write, from what the statement saw (first reason wins). */
export function refusalOf(credentialOk: boolean, currentTemplate: string | null, guard: WriteGuard | undefined): WriteRefusal {
  if (!credentialOk) return 'credential_changed';
  if (currentTemplate === null) return 'not_found';
  if (guard?.template !== undefined && guard.template !== currentTemplate) return 'template_mismatch';
  return 'not_found'; // changed or deleted between the statement's snapshot and its write
}
