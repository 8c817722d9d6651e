import type { CredentialStore } from '@tilecast/core/storage';
import { type Ctx, type Statement, prepared } from './db.js';

interface HashRow {
  id: string;
  token_hash: string;
}

/** One statement per kind, whatever the number of credentials; a kind with none costs nothing. */
export function credentialMethods({ db, t }: Ctx): CredentialStore {
  const currentHashes = async (statement: Statement, ids: string[]): Promise<Map<string, string>> => {
    if (ids.length === 0) return new Map();
    const { rows } = await db.query<HashRow>(statement, [[...new Set(ids)]]);
    return new Map(rows.map((row) => [row.id, row.token_hash]));
  };
  const activeAccounts = prepared(`SELECT id, token_hash FROM ${t.accounts} WHERE id = ANY($1::text[]) AND subscription = 'active'`);
  const devices = prepared(`SELECT id, token_hash FROM ${t.devices} WHERE id = ANY($1::text[])`);

  return {
    async checkCredentials(query) {
      const [accountHashes, deviceHashes] = await Promise.all([
        currentHashes(
          activeAccounts,
          query.accounts.map((entry) => entry.accountId),
        ),
        currentHashes(
          devices,
          query.devices.map((entry) => entry.deviceId),
        ),
      ]);
      return {
        accounts: query.accounts.map((entry) => accountHashes.get(entry.accountId) === entry.tokenHash),
        devices: query.devices.map((entry) => deviceHashes.get(entry.deviceId) === entry.tokenHash),
      };
    },
  };
}
