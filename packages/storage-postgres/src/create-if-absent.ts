import type { AbsentRecord, SeedStore } from '@tilecast/core/storage';
import { type Ctx, isUniqueViolation } from './db.js';

/**
 * Seed creation (docs/contract/deployment.md#env-seed): one `INSERT ... ON CONFLICT (key) DO NOTHING`
 * per record, so an existing row is never touched and concurrent creates yield one row.
 * The conflict target is the key only: a token hash held elsewhere is still refused.
 */
export function createIfAbsentMethod({ db, t }: Ctx): SeedStore {
  return {
    async createIfAbsent(record) {
      try {
        const result = await insert(record);
        return (result.rowCount ?? 0) > 0;
      } catch (error) {
        // Two instances creating the same record with the same token race on the token
        // index, which ON CONFLICT (key) does not arbitrate: the loser finds the key taken.
        if (isUniqueViolation(error, 'accounts_token_hash_key')) {
          if (record.kind === 'account' && (await exists(t.accounts, record.account.id))) return false;
          throw new Error('this token hash already belongs to another account');
        }
        if (isUniqueViolation(error, 'devices_token_hash_key')) {
          if (record.kind === 'device' && (await exists(t.devices, record.device.id))) return false;
          throw new Error('this token hash already belongs to another device');
        }
        throw error;
      }
    },
  };

  async function exists(table: string, id: string): Promise<boolean> {
    const { rowCount } = await db.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id]);
    return (rowCount ?? 0) > 0;
  }

  function insert(record: AbsentRecord) {
    switch (record.kind) {
      case 'account': {
        const { id, tokenHash, subscription, activityQuota } = record.account;
        return db.query(
          `INSERT INTO ${t.accounts} (id, token_hash, subscription, activity_quota) VALUES ($1, $2, $3, $4)
           ON CONFLICT (id) DO NOTHING`,
          [id, tokenHash, subscription, activityQuota],
        );
      }
      case 'activity': {
        const { accountId, slug, template, dismissalDelayS, delivery = 'tokens', frequentUpdates = false } = record.definition;
        return db.query(
          `INSERT INTO ${t.activities} (account_id, slug, template, dismissal_delay_s, state, live, content, updated_at, delivery, frequent_updates)
           VALUES ($1, $2, $3, $4, 'IDLE', false, NULL, NULL, $5, $6)
           ON CONFLICT (account_id, slug) DO NOTHING`,
          [accountId, slug, template, dismissalDelayS, delivery, frequentUpdates],
        );
      }
      case 'widget': {
        const { accountId, slug, template, staleAfter, privacy } = record.definition;
        return db.query(
          `INSERT INTO ${t.widgets} (account_id, slug, template, stale_after, privacy, content, updated_at)
           VALUES ($1, $2, $3, $4, $5, NULL, NULL)
           ON CONFLICT (account_id, slug) DO NOTHING`,
          [accountId, slug, template, staleAfter, privacy],
        );
      }
      case 'device': {
        const { id, accountId, tokenHash } = record.device;
        return db.query(`INSERT INTO ${t.devices} (id, account_id, token_hash) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`, [id, accountId, tokenHash]);
      }
    }
  }
}
