import type { AccountRecord, AccountStore } from '@tilecast/core/storage';
import { type Ctx, isUniqueViolation, num, transaction } from './db.js';

interface AccountRow {
  id: string;
  token_hash: string;
  subscription: AccountRecord['subscription'];
  activity_quota: number;
}

const COLUMNS = 'id, token_hash, subscription, activity_quota';

const toAccount = (row: AccountRow): AccountRecord => ({
  id: row.id,
  tokenHash: row.token_hash,
  subscription: row.subscription,
  activityQuota: num(row.activity_quota),
});

/** A token hash names one account at most (as in the memory store). */
function refuseTakenHash(error: unknown): never {
  if (isUniqueViolation(error, 'accounts_token_hash_key')) {
    throw new Error('this token hash already belongs to another account');
  }
  throw error;
}

export function accountMethods({ db, t }: Ctx): AccountStore {
  return {
    async upsertAccount(account) {
      await db
        .query(
          `INSERT INTO ${t.accounts} (${COLUMNS}) VALUES ($1, $2, $3, $4)
           ON CONFLICT (id) DO UPDATE SET token_hash = EXCLUDED.token_hash, subscription = EXCLUDED.subscription,
             activity_quota = EXCLUDED.activity_quota`,
          [account.id, account.tokenHash, account.subscription, account.activityQuota],
        )
        .catch(refuseTakenHash);
    },

    // Children first, the account row last: the same lock order as a quota start (activity
    // row, then account row), so the two never deadlock. Children go even when the
    // account row is missing, so nothing can be orphaned.
    async deleteAccount(accountId) {
      return transaction(db, async (client) => {
        await client.query(`DELETE FROM ${t.activities} WHERE account_id = $1`, [accountId]);
        await client.query(`DELETE FROM ${t.widgets} WHERE account_id = $1`, [accountId]); // shares, outcomes cascade
        await client.query(`DELETE FROM ${t.deviceStreamLeases} WHERE device_id IN (SELECT id FROM ${t.devices} WHERE account_id = $1)`, [accountId]);
        await client.query(`DELETE FROM ${t.devices} WHERE account_id = $1`, [accountId]); // shares naming them cascade
        await client.query(`DELETE FROM ${t.events} WHERE account_id = $1`, [accountId]);
        await client.query(`DELETE FROM ${t.eventCounters} WHERE account_id = $1`, [accountId]);
        await client.query(`DELETE FROM ${t.streamLeases} WHERE account_id = $1`, [accountId]);
        const deleted = await client.query(`DELETE FROM ${t.accounts} WHERE id = $1`, [accountId]);
        return (deleted.rowCount ?? 0) > 0;
      });
    },

    async getAccount(accountId) {
      const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM ${t.accounts} WHERE id = $1`, [accountId]);
      return rows[0] ? toAccount(rows[0]) : null;
    },

    async findAccountByTokenHash(tokenHash) {
      const { rows } = await db.query<AccountRow>(`SELECT ${COLUMNS} FROM ${t.accounts} WHERE token_hash = $1`, [tokenHash]);
      return rows[0] ? toAccount(rows[0]) : null;
    },

    async setAccountTokenHash(accountId, tokenHash) {
      const result = await db.query(`UPDATE ${t.accounts} SET token_hash = $2 WHERE id = $1`, [accountId, tokenHash]).catch(refuseTakenHash);
      return (result.rowCount ?? 0) > 0;
    },

    async updateAccount(accountId, patch) {
      const result = await db.query(
        `UPDATE ${t.accounts} SET subscription = COALESCE($2, subscription), activity_quota = COALESCE($3, activity_quota)
         WHERE id = $1`,
        [accountId, patch.subscription ?? null, patch.activityQuota ?? null],
      );
      return (result.rowCount ?? 0) > 0;
    },

    async listAccounts({ after, limit }) {
      const { rows } = await db.query<AccountRow>(
        `SELECT ${COLUMNS} FROM ${t.accounts} WHERE $1::text IS NULL OR id COLLATE "C" > $1 ORDER BY id COLLATE "C" LIMIT $2`,
        [after, limit],
      );
      return rows.map(toAccount);
    },
  };
}
