import type { LeaseStore } from '@tilecast/core/storage';
import { type Ctx, transaction } from './db.js';

/** A lease is held while `expires_at > now` (the same boundary as events). */
export function leaseMethods({ db, t }: Ctx): LeaseStore {
  return {
    // ATOMIC: one transaction behind an advisory lock on (schema, account): expired leases
    // are deleted, the rest counted and the new one inserted, each statement seeing what
    // the previous holder of the lock committed. A crashed instance's leases simply expire.
    async acquireStreamLease(accountId, leaseId, { max, now, ttlMs }) {
      return transaction(db, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${t.schema}:lease:${accountId}`]);
        await client.query(`DELETE FROM ${t.streamLeases} WHERE account_id = $1 AND expires_at <= $2`, [accountId, now]);
        // Acquiring a lease this holder already has extends it and takes no second slot.
        const { rows } = await client.query(
          `INSERT INTO ${t.streamLeases} (account_id, lease_id, expires_at)
           SELECT $1, $2, $3::bigint + $4::bigint
           WHERE EXISTS (SELECT 1 FROM ${t.streamLeases} WHERE account_id = $1 AND lease_id = $2)
              OR (SELECT count(*) FROM ${t.streamLeases} WHERE account_id = $1) < $5
           ON CONFLICT (account_id, lease_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
           RETURNING 1`,
          [accountId, leaseId, now, ttlMs, max],
        );
        return rows.length > 0;
      });
    },

    async renewStreamLease(accountId, leaseId, { now, ttlMs }) {
      const result = await db.query(
        `UPDATE ${t.streamLeases} SET expires_at = $3::bigint + $4::bigint
         WHERE account_id = $1 AND lease_id = $2 AND expires_at > $3`,
        [accountId, leaseId, now, ttlMs],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async releaseStreamLease(accountId, leaseId) {
      await db.query(`DELETE FROM ${t.streamLeases} WHERE account_id = $1 AND lease_id = $2`, [accountId, leaseId]);
    },
  };
}
