import type { AccountStore } from '@tilecast/core/storage';
import { releaseChannelsOf } from './channels.js';
import { removeDevice } from './devices.js';
import { copy, type MemoryState } from './state.js';
import { removeWidget } from './widgets.js';

/** Points `tokenHash` at `accountId`; refuses a hash that already belongs to another account. */
function claimTokenHash(state: MemoryState, accountId: string, tokenHash: string): void {
  const holder = state.accountByToken.get(tokenHash);
  if (holder !== undefined && holder !== accountId) {
    throw new Error('this token hash already belongs to another account');
  }
}

export function accountMethods(state: MemoryState): AccountStore {
  return {
    async upsertAccount(account) {
      claimTokenHash(state, account.id, account.tokenHash);
      const previous = state.accounts.get(account.id);
      if (previous) state.accountByToken.delete(previous.tokenHash);
      state.accounts.set(account.id, copy(account));
      state.accountByToken.set(account.tokenHash, account.id);
    },

    async deleteAccount(accountId) {
      const account = state.accounts.get(accountId);
      if (account) {
        state.accounts.delete(accountId);
        state.accountByToken.delete(account.tokenHash);
      }
      // Children go even when the account row is missing, so nothing can be orphaned.
      for (const activity of state.activities.get(accountId)?.values() ?? []) releaseChannelsOf(state, activity);
      state.activities.delete(accountId);
      state.jobs.delete(accountId); // the activities' jobs; the widgets' go with them below
      for (const slug of [...(state.widgets.get(accountId)?.keys() ?? [])]) removeWidget(state, accountId, slug);
      for (const deviceId of [...(state.devicesByAccount.get(accountId) ?? [])]) removeDevice(state, deviceId);
      state.events.delete(accountId);
      state.eventStreamSlots.delete(accountId);
      return account !== undefined;
    },

    async getAccount(accountId) {
      const account = state.accounts.get(accountId);
      return account ? { ...account } : null; // a flat record: a spread is a full copy
    },

    async findAccountByTokenHash(tokenHash) {
      const accountId = state.accountByToken.get(tokenHash);
      const account = accountId === undefined ? undefined : state.accounts.get(accountId);
      return account ? { ...account } : null; // a flat record: a spread is a full copy
    },

    async setAccountTokenHash(accountId, tokenHash) {
      const account = state.accounts.get(accountId);
      if (!account) return false;
      claimTokenHash(state, accountId, tokenHash);
      state.accountByToken.delete(account.tokenHash);
      account.tokenHash = tokenHash;
      state.accountByToken.set(tokenHash, accountId);
      return true;
    },

    async updateAccount(accountId, patch) {
      const account = state.accounts.get(accountId);
      if (!account) return false;
      if (patch.subscription !== undefined) account.subscription = patch.subscription;
      if (patch.activityQuota !== undefined) account.activityQuota = patch.activityQuota;
      return true;
    },

    async listAccounts({ after, limit }) {
      const ids = [...state.accounts.keys()].filter((id) => after === null || id > after).sort();
      return ids.slice(0, limit).map((id) => ({ ...state.accounts.get(id)! })); // flat records: a spread is a full copy
    },
  };
}
