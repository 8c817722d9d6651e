import type { ApnsEnvironment, ApnsRegistration, ApnsStore } from '@tilecast/core/storage';
import { channelMethods } from './channels.js';
import { type Ctx, insertedAny, prepared } from './db.js';

interface RegistrationRow {
  environment: ApnsEnvironment;
  push_to_start: string | null;
  widgets: string | null;
  channels: boolean;
}

const toRegistration = (row: RegistrationRow): ApnsRegistration => ({
  environment: row.environment,
  pushToStart: row.push_to_start,
  widgets: row.widgets,
  channels: row.channels,
});

export function apnsMethods(ctx: Ctx): ApnsStore {
  const { db, t } = ctx;
  const registrationsOf = prepared(
    `SELECT device_id, environment, push_to_start, widgets, channels FROM ${t.apnsRegistrations} WHERE device_id = ANY($1::text[])`,
  );
  const activityTargetsOf = prepared(
    `SELECT r.device_id, r.environment, r.push_to_start, r.widgets, r.channels, k.token
     FROM ${t.apnsRegistrations} r
     LEFT JOIN ${t.apnsActivityTokens} k ON k.device_id = r.device_id AND k.account_id = $2 AND k.slug = $3
     WHERE r.device_id = ANY($1::text[])`,
  );
  return {
    // The device row is locked (FOR SHARE) by the write that checks it: a concurrent
    // `upsertDevice` or `deleteDevice` either waits for this write and then removes what it
    // wrote, or goes first and this write re-reads the changed row and writes nothing.
    // A `channels` left out keeps the stored flag, false for a new registration
    // (docs/contract/broadcast-channels.md#broadcast-device-flag).
    async setApnsRegistration(deviceId, { environment, pushToStart, widgets, channels }, condition) {
      const expected = condition?.ifDevice;
      return insertedAny(
        db.query(
          `INSERT INTO ${t.apnsRegistrations} (device_id, environment, push_to_start, widgets, channels)
           SELECT id, $2, $3, $4, COALESCE($9::boolean, false) FROM ${t.devices}
           WHERE id = $1 AND ($7::text IS NULL OR (account_id = $7 AND token_hash = $8))
           FOR SHARE
           ON CONFLICT (device_id) DO UPDATE SET
             environment = EXCLUDED.environment,
             push_to_start = CASE WHEN $5::boolean THEN EXCLUDED.push_to_start ELSE ${t.apnsRegistrations}.push_to_start END,
             widgets = CASE WHEN $6::boolean THEN EXCLUDED.widgets ELSE ${t.apnsRegistrations}.widgets END,
             channels = COALESCE($9::boolean, ${t.apnsRegistrations}.channels)`,
          [
            deviceId,
            environment,
            pushToStart ?? null,
            widgets ?? null,
            pushToStart !== undefined,
            widgets !== undefined,
            expected?.accountId ?? null,
            expected?.tokenHash ?? null,
            channels ?? null,
          ],
        ),
      );
    },

    async getApnsRegistration(deviceId) {
      const { rows } = await db.query<RegistrationRow>(
        `SELECT environment, push_to_start, widgets, channels FROM ${t.apnsRegistrations} WHERE device_id = $1`,
        [deviceId],
      );
      return rows[0] ? toRegistration(rows[0]) : null;
    },

    // One statement for a whole batch (a fan-out's devices), prepared once per connection.
    async getApnsRegistrations(deviceIds) {
      if (deviceIds.length === 0) return new Map();
      const { rows } = await db.query<RegistrationRow & { device_id: string }>(registrationsOf, [deviceIds]);
      return new Map(rows.map((row) => [row.device_id, toRegistration(row)]));
    },

    // The registration and the activity's update token in one statement: an update push
    // needs both, and asking for the token after the registration would be a second round trip.
    async getActivityPushTargets(accountId, slug, deviceIds) {
      if (deviceIds.length === 0) return new Map();
      const { rows } = await db.query<RegistrationRow & { device_id: string; token: string | null }>(activityTargetsOf, [deviceIds, accountId, slug]);
      return new Map(rows.map((row) => [row.device_id, { registration: toRegistration(row), token: row.token }]));
    },

    async removeApnsRegistration(deviceId, condition) {
      const expected = condition?.ifDevice;
      // The device row is locked as by the registration writes: a rotation committed first
      // is seen (the row no longer matches, nothing is removed); one that comes later waits.
      const { rows } = await db.query<{ held: boolean }>(
        `WITH device AS (
           SELECT id FROM ${t.devices} WHERE id = $1 AND ($2::text IS NULL OR (account_id = $2 AND token_hash = $3)) FOR SHARE
         ), registration AS (
           DELETE FROM ${t.apnsRegistrations} WHERE device_id IN (SELECT id FROM device)
         ), tokens AS (
           DELETE FROM ${t.apnsActivityTokens} WHERE device_id IN (SELECT id FROM device)
         )
         SELECT EXISTS (SELECT 1 FROM device) AS held`,
        [deviceId, expected?.accountId ?? null, expected?.tokenHash ?? null],
      );
      return expected === undefined || rows[0]!.held;
    },

    async setActivityPushToken(deviceId, accountId, slug, token, condition) {
      const expected = condition?.ifDevice;
      // The device authenticated in another account: the activity was never shown on it.
      if (expected !== undefined && expected.accountId !== accountId) return false;
      // Written only for an activity of the device's own account, in the one statement,
      // with the device row locked as in `setApnsRegistration`.
      return insertedAny(
        db.query(
          `INSERT INTO ${t.apnsActivityTokens} (device_id, account_id, slug, token)
           SELECT d.id, a.account_id, a.slug, $4
           FROM ${t.devices} d JOIN ${t.activities} a ON a.account_id = d.account_id AND a.slug = $3
           WHERE d.id = $1 AND d.account_id = $2 AND ($5::text IS NULL OR d.token_hash = $5)
           FOR SHARE OF d
           ON CONFLICT (device_id, account_id, slug) DO UPDATE SET token = EXCLUDED.token`,
          [deviceId, accountId, slug, token, expected?.tokenHash ?? null],
        ),
      );
    },

    async getActivityPushToken(deviceId, accountId, slug) {
      const { rows } = await db.query<{ token: string }>(`SELECT token FROM ${t.apnsActivityTokens} WHERE device_id = $1 AND account_id = $2 AND slug = $3`, [
        deviceId,
        accountId,
        slug,
      ]);
      return rows[0]?.token ?? null;
    },

    async forgetActivityPushToken(deviceId, accountId, slug, condition) {
      await db.query(
        `DELETE FROM ${t.apnsActivityTokens}
         WHERE device_id = $1 AND account_id = $2 AND slug = $3 AND ($4::text IS NULL OR token = $4)`,
        [deviceId, accountId, slug, condition?.ifToken ?? null],
      );
    },

    async removeApnsToken(deviceId, token) {
      await db.query(
        `WITH registration AS (
           UPDATE ${t.apnsRegistrations} SET
             push_to_start = CASE WHEN push_to_start = $2 THEN NULL ELSE push_to_start END,
             widgets = CASE WHEN widgets = $2 THEN NULL ELSE widgets END
           WHERE device_id = $1 AND (push_to_start = $2 OR widgets = $2)
         )
         DELETE FROM ${t.apnsActivityTokens} WHERE device_id = $1 AND token = $2`,
        [deviceId, token],
      );
    },

    ...channelMethods(ctx),
  };
}
