import type { EventStreamSlotStore } from '@tilecast/core/storage';
import { type Ctx, transaction } from './db.js';

/** A slot is held while `expires_at > now` (the same boundary as events). */
export function eventStreamSlotMethods({ db, t }: Ctx): EventStreamSlotStore {
  return {
    // ATOMIC: one transaction behind an advisory lock on (schema, account): expired slots
    // are deleted, the rest counted and the new one inserted, each statement seeing what
    // the previous holder of the lock committed. A crashed instance's slots simply expire.
    async acquireEventStreamSlot(accountId, slotId, { max, now, ttlMs }) {
      return transaction(db, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${t.schema}:lease:${accountId}`]);
        await client.query(`DELETE FROM ${t.streamLeases} WHERE account_id = $1 AND expires_at <= $2`, [accountId, now]);
        // Acquiring a slot this holder already has extends it and takes no second one.
        const { rows } = await client.query(
          `INSERT INTO ${t.streamLeases} (account_id, lease_id, expires_at)
           SELECT $1, $2, $3::bigint + $4::bigint
           WHERE EXISTS (SELECT 1 FROM ${t.streamLeases} WHERE account_id = $1 AND lease_id = $2)
              OR (SELECT count(*) FROM ${t.streamLeases} WHERE account_id = $1) < $5
           ON CONFLICT (account_id, lease_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
           RETURNING 1`,
          [accountId, slotId, now, ttlMs, max],
        );
        return rows.length > 0;
      });
    },

    async renewEventStreamSlot(accountId, slotId, { now, ttlMs }) {
      const result = await db.query(
        `UPDATE ${t.streamLeases} SET expires_at = $3::bigint + $4::bigint
         WHERE account_id = $1 AND lease_id = $2 AND expires_at > $3`,
        [accountId, slotId, now, ttlMs],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async releaseEventStreamSlot(accountId, slotId) {
      await db.query(`DELETE FROM ${t.streamLeases} WHERE account_id = $1 AND lease_id = $2`, [accountId, slotId]);
    },
  };
}
