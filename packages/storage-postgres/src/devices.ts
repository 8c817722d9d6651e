import type { DeviceRecord, DeviceStore } from '@tilecast/core/storage';
import { type Ctx, isUniqueViolation, prepared, transaction } from './db.js';

interface DeviceRow {
  id: string;
  account_id: string;
  token_hash: string;
}

const toDevice = (row: DeviceRow): DeviceRecord => ({ id: row.id, accountId: row.account_id, tokenHash: row.token_hash });

export function deviceMethods({ db, t }: Ctx): DeviceStore {
  // Every delivery job reads its audience with this (docs/contract/durable-delivery.md#durable-job-resume):
  // named, so PostgreSQL parses and plans it once per connection, not once per job.
  const accountDeviceIds = prepared(`SELECT id FROM ${t.devices} WHERE account_id = $1 ORDER BY id COLLATE "C"`);
  return {
    async upsertDevice(device) {
      try {
        // A rotated token or a moved device loses its APNs registrations, its FCM token
        // (docs/contract/device-api.md#device-fcm-follows-token) and its stream slots; a
        // moved device also loses the shares made for its old account. The device row is
        // locked first, in a statement of its own: a registration or share write in flight
        // (which holds it FOR SHARE) has then committed, and the next statement's snapshot
        // sees what it wrote; a later one waits and finds the new token hash and account.
        await transaction(db, async (client) => {
          await client.query(`SELECT 1 FROM ${t.devices} WHERE id = $1 FOR UPDATE`, [device.id]);
          await client.query(
            `WITH previous AS (SELECT account_id, token_hash FROM ${t.devices} WHERE id = $1),
           changed AS (SELECT 1 FROM previous WHERE account_id <> $2 OR token_hash <> $3),
           moved AS (SELECT 1 FROM previous WHERE account_id <> $2),
           upserted AS (
             INSERT INTO ${t.devices} (id, account_id, token_hash) VALUES ($1, $2, $3)
             ON CONFLICT (id) DO UPDATE SET account_id = EXCLUDED.account_id, token_hash = EXCLUDED.token_hash
             RETURNING id
           ),
           registrations AS (DELETE FROM ${t.apnsRegistrations} WHERE device_id = $1 AND EXISTS (SELECT 1 FROM changed)),
           leases AS (DELETE FROM ${t.deviceStreamLeases} WHERE device_id = $1 AND EXISTS (SELECT 1 FROM changed)),
           fcm AS (DELETE FROM ${t.fcmTokens} WHERE device_id = $1 AND EXISTS (SELECT 1 FROM changed)),
           shares AS (DELETE FROM ${t.widgetShares} WHERE device_id = $1 AND EXISTS (SELECT 1 FROM moved))
           DELETE FROM ${t.apnsActivityTokens} WHERE device_id = $1 AND EXISTS (SELECT 1 FROM changed)`,
            [device.id, device.accountId, device.tokenHash],
          );
        });
      } catch (error) {
        if (isUniqueViolation(error, 'devices_token_hash_key')) throw new Error('this token hash already belongs to another device');
        throw error;
      }
    },

    // Shares, APNs registrations and the FCM token of the device go with it (ON DELETE CASCADE), its
    // stream slots in the same statement.
    async deleteDevice(deviceId) {
      const result = await db.query(
        `WITH leases AS (DELETE FROM ${t.deviceStreamLeases} WHERE device_id = $1)
         DELETE FROM ${t.devices} WHERE id = $1`,
        [deviceId],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async getDevice(deviceId) {
      const { rows } = await db.query<DeviceRow>(`SELECT id, account_id, token_hash FROM ${t.devices} WHERE id = $1`, [deviceId]);
      return rows[0] ? toDevice(rows[0]) : null;
    },

    async findDeviceByTokenHash(tokenHash) {
      const { rows } = await db.query<DeviceRow>(`SELECT id, account_id, token_hash FROM ${t.devices} WHERE token_hash = $1`, [tokenHash]);
      return rows[0] ? toDevice(rows[0]) : null;
    },

    async listAccountDevices(accountId) {
      const { rows } = await db.query<DeviceRow>(`SELECT id, account_id, token_hash FROM ${t.devices} WHERE account_id = $1 ORDER BY id COLLATE "C"`, [
        accountId,
      ]);
      return rows.map(toDevice);
    },

    async listAccountDeviceIds(accountId) {
      const { rows } = await db.query<{ id: string }>(accountDeviceIds, [accountId]);
      return rows.map((row) => row.id);
    },
  };
}
