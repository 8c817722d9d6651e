import type { DeviceStreamSlotStore, EventStreamSlotStore, SlotAcquisition, SlotRenewal } from '@tilecast/core/storage';
import { type Ctx, type PoolLike, transaction } from './db.js';

/** Where one kind of stream slots lives: its table, the column naming their owner, and the tag of its lock. */
interface LeaseTable {
  table: string;
  owner: 'account_id' | 'device_id';
  lockTag: string;
}

/** The three slot calls on one kind of leases, whoever owns them. */
interface LeaseMethods {
  acquire(ownerId: string, slotId: string, terms: SlotAcquisition): Promise<boolean>;
  renew(ownerId: string, slotId: string, terms: SlotRenewal): Promise<boolean>;
  release(ownerId: string, slotId: string): Promise<void>;
}

/**
 * Stream slots in one table: event-stream slots per account and device-stream slots per
 * device follow one rule. A slot is held while `expires_at > now` (the same boundary as events).
 */
function leaseMethods(db: PoolLike, schema: string, { table, owner, lockTag }: LeaseTable): LeaseMethods {
  return {
    // ATOMIC: one transaction behind an advisory lock on (schema, owner): expired slots
    // are deleted, the rest counted and the new one inserted, each statement seeing what
    // the previous holder of the lock committed. A crashed instance's slots simply expire.
    async acquire(ownerId, slotId, { max, now, ttlMs }) {
      return transaction(db, async (client) => {
        await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [`${schema}:${lockTag}:${ownerId}`]);
        await client.query(`DELETE FROM ${table} WHERE ${owner} = $1 AND expires_at <= $2`, [ownerId, now]);
        // Acquiring a slot this holder already has extends it and takes no second one.
        const { rows } = await client.query(
          `INSERT INTO ${table} (${owner}, lease_id, expires_at)
           SELECT $1, $2, $3::bigint + $4::bigint
           WHERE EXISTS (SELECT 1 FROM ${table} WHERE ${owner} = $1 AND lease_id = $2)
              OR (SELECT count(*) FROM ${table} WHERE ${owner} = $1) < $5
           ON CONFLICT (${owner}, lease_id) DO UPDATE SET expires_at = EXCLUDED.expires_at
           RETURNING 1`,
          [ownerId, slotId, now, ttlMs, max],
        );
        return rows.length > 0;
      });
    },

    async renew(ownerId, slotId, { now, ttlMs }) {
      const result = await db.query(
        `UPDATE ${table} SET expires_at = $3::bigint + $4::bigint
         WHERE ${owner} = $1 AND lease_id = $2 AND expires_at > $3`,
        [ownerId, slotId, now, ttlMs],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async release(ownerId, slotId) {
      await db.query(`DELETE FROM ${table} WHERE ${owner} = $1 AND lease_id = $2`, [ownerId, slotId]);
    },
  };
}

export function eventStreamSlotMethods({ db, t }: Ctx): EventStreamSlotStore {
  const { acquire, renew, release } = leaseMethods(db, t.schema, { table: t.streamLeases, owner: 'account_id', lockTag: 'lease' });
  return { acquireEventStreamSlot: acquire, renewEventStreamSlot: renew, releaseEventStreamSlot: release };
}

export function deviceStreamSlotMethods({ db, t }: Ctx): DeviceStreamSlotStore {
  const { acquire, renew, release } = leaseMethods(db, t.schema, { table: t.deviceStreamLeases, owner: 'device_id', lockTag: 'device-lease' });
  return { acquireDeviceStreamSlot: acquire, renewDeviceStreamSlot: renew, releaseDeviceStreamSlot: release };
}
