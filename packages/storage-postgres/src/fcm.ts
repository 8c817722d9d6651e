import type { FcmStore } from '@tilecast/core/storage';
import { type Ctx, insertedAny, prepared } from './db.js';

export function fcmMethods({ db, t }: Ctx): FcmStore {
  const tokensOf = prepared(`SELECT device_id, token FROM ${t.fcmTokens} WHERE device_id = ANY($1::text[])`);
  return {
    // As `setApnsRegistration`: the device row is locked (FOR SHARE) by the write that checks
    // it, so a concurrent `upsertDevice` or `deleteDevice` either waits and then removes what
    // was written, or goes first and this write finds the changed row and writes nothing.
    async setFcmToken(deviceId, token, condition) {
      const expected = condition?.ifDevice;
      return insertedAny(
        db.query(
          `INSERT INTO ${t.fcmTokens} (device_id, token)
           SELECT id, $2 FROM ${t.devices}
           WHERE id = $1 AND ($3::text IS NULL OR (account_id = $3 AND token_hash = $4))
           FOR SHARE
           ON CONFLICT (device_id) DO UPDATE SET token = EXCLUDED.token`,
          [deviceId, token, expected?.accountId ?? null, expected?.tokenHash ?? null],
        ),
      );
    },

    async getFcmToken(deviceId) {
      const { rows } = await db.query<{ token: string }>(`SELECT token FROM ${t.fcmTokens} WHERE device_id = $1`, [deviceId]);
      return rows[0]?.token ?? null;
    },

    // One statement for a whole batch (a fan-out's devices), prepared once per connection.
    async getFcmTokens(deviceIds) {
      if (deviceIds.length === 0) return new Map();
      const { rows } = await db.query<{ device_id: string; token: string }>(tokensOf, [deviceIds]);
      return new Map(rows.map((row) => [row.device_id, row.token]));
    },

    // One statement: the device row locked as by the write (a rotation committed first is
    // seen, a later one waits), and the token compared in the delete itself, so a token
    // written meanwhile (its row lock is waited for, then re-checked) is never taken.
    async removeFcmToken(deviceId, condition) {
      const expected = condition?.ifDevice;
      const ifToken = condition?.ifToken;
      const { rows } = await db.query<{ held: boolean; removed: boolean }>(
        `WITH device AS (
           SELECT id FROM ${t.devices} WHERE id = $1 AND ($2::text IS NULL OR (account_id = $2 AND token_hash = $3)) FOR SHARE
         ), removed AS (
           DELETE FROM ${t.fcmTokens} WHERE device_id IN (SELECT id FROM device) AND ($4::text IS NULL OR token = $4) RETURNING 1
         )
         SELECT EXISTS (SELECT 1 FROM device) AS held, EXISTS (SELECT 1 FROM removed) AS removed`,
        [deviceId, expected?.accountId ?? null, expected?.tokenHash ?? null, ifToken ?? null],
      );
      const { held, removed } = rows[0]!;
      if (expected !== undefined && !held) return false;
      return ifToken === undefined || removed;
    },
  };
}
