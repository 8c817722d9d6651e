import { isoTime, type ApnsEnvironment, type ApnsStore, type HeldChannel } from '@tilecast/core/storage';
import { type Ctx, num, transaction } from './db.js';

/** The activity column of each environment's channel: never a caller's string in the SQL. */
function channelColumn(environment: ApnsEnvironment): string {
  if (environment === 'production') return 'channel_production';
  if (environment === 'sandbox') return 'channel_sandbox';
  throw new TypeError(`unknown APNs environment ${JSON.stringify(environment)}`);
}

interface HeldRow {
  channel_id: string;
  account_id: string;
  slug: string;
  environment: ApnsEnvironment;
  live: boolean;
  updated_at: string | number | null;
  dismissal_delay_s: number;
}

const toHeld = (row: HeldRow): HeldChannel => ({
  accountId: row.account_id,
  slug: row.slug,
  environment: row.environment,
  channelId: row.channel_id,
  live: row.live,
  updatedAt: row.updated_at === null ? null : isoTime(num(row.updated_at)),
  dismissalDelayS: num(row.dismissal_delay_s),
});

export function channelMethods({ db, t }: Ctx): Pick<ApnsStore, 'setActivityChannel' | 'listActivityChannels' | 'listChannelFollowers'> {
  return {
    // ATOMIC: one transaction, the activity row locked first, so a compare-and-set from
    // another instance waits and then reads this one's outcome. The new id is claimed
    // before anything changes: held by another activity or environment, nothing is
    // written (docs/contract/broadcast-channels.md#broadcast-channel-on-start).
    async setActivityChannel(accountId, slug, environment, channelId, condition) {
      const column = channelColumn(environment);
      return transaction(db, async (client) => {
        const { rows } = await client.query<{ stored: string | null }>(
          `SELECT ${column} AS stored FROM ${t.activities} WHERE account_id = $1 AND slug = $2 FOR UPDATE`,
          [accountId, slug],
        );
        const activity = rows[0];
        if (activity === undefined) return false;
        if (condition?.ifChannel !== undefined && condition.ifChannel !== activity.stored) return false;
        if (channelId === activity.stored) return true;
        if (channelId !== null) {
          const claimed = await client.query(
            `INSERT INTO ${t.activityChannels} (channel_id, account_id, slug, environment) VALUES ($1, $2, $3, $4)
             ON CONFLICT (channel_id) DO NOTHING`,
            [channelId, accountId, slug, environment],
          );
          if ((claimed.rowCount ?? 0) === 0) return false;
        }
        if (activity.stored !== null) await client.query(`DELETE FROM ${t.activityChannels} WHERE channel_id = $1`, [activity.stored]);
        await client.query(`UPDATE ${t.activities} SET ${column} = $3 WHERE account_id = $1 AND slug = $2`, [accountId, slug, channelId]);
        return true;
      });
    },

    async listActivityChannels() {
      const { rows } = await db.query<HeldRow>(
        `SELECT c.channel_id, c.account_id, c.slug, c.environment, a.live, a.updated_at, a.dismissal_delay_s
         FROM ${t.activityChannels} c JOIN ${t.activities} a ON a.account_id = c.account_id AND a.slug = c.slug`,
      );
      return rows.map(toHeld);
    },

    async listChannelFollowers(accountId, environments) {
      if (environments.length === 0) return [];
      const { rows } = await db.query<{ id: string }>(
        `SELECT d.id FROM ${t.devices} d JOIN ${t.apnsRegistrations} r ON r.device_id = d.id
         WHERE d.account_id = $1 AND r.channels AND r.environment = ANY($2::text[])
         ORDER BY d.id COLLATE "C"`,
        [accountId, [...environments]],
      );
      return rows.map((row) => row.id);
    },
  };
}
