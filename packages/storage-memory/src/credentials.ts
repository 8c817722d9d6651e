import type { CredentialStore } from '@tilecast/core/storage';
import type { MemoryState } from './state.js';

export function credentialMethods(state: MemoryState): CredentialStore {
  return {
    async checkCredentials({ accounts, devices }) {
      return {
        accounts: accounts.map(({ accountId, tokenHash }) => {
          const account = state.accounts.get(accountId);
          return account !== undefined && account.tokenHash === tokenHash && account.subscription === 'active';
        }),
        devices: devices.map(({ deviceId, tokenHash }) => state.devices.get(deviceId)?.tokenHash === tokenHash),
      };
    },
  };
}
