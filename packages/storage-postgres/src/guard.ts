import { writeRefusal, type WriteGuard, type WriteRefusal } from '@tilecast/core/storage';
import type { Queryable, Tables } from './db.js';

/**
 * SQL that is true when the guard's credential still holds: no token hash given, or the
 * account (`$account`) holds it with an active subscription. Placed in the write's own
 * statement, so a token rotated a moment before is refused by that very write.
 */
export const credentialHolds = (t: Tables, account: string, tokenHash: string): string =>
  `(${tokenHash}::text IS NULL OR EXISTS (SELECT 1 FROM ${t.accounts} a
     WHERE a.id = ${account} AND a.token_hash = ${tokenHash} AND a.subscription = 'active'))`;

/**
 * Why a guarded write of the row (`account_id`, `slug`) of `table` changed nothing, read
 * right after it (one more round trip, on refusals only).
 */
export async function explainRefusal(
  db: Queryable,
  t: Tables,
  table: string,
  accountId: string,
  slug: string,
  guard: WriteGuard | undefined,
): Promise<WriteRefusal> {
  const { rows } = await db.query<{ template: string | null; credential_ok: boolean }>(
    `SELECT r.template, ${credentialHolds(t, '$1', '$3')} AS credential_ok
     FROM (SELECT 1) AS one LEFT JOIN ${table} r ON r.account_id = $1 AND r.slug = $2`,
    [accountId, slug, guard?.tokenHash ?? null],
  );
  // Nothing refused in this later snapshot: the row changed or went between the write's
  // snapshot and its update.
  return writeRefusal(rows[0]!.credential_ok, rows[0]!.template, guard) ?? 'not_found';
}
