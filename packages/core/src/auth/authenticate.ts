import { fail } from '../errors.js';
import type { CoreRequest } from '../http/types.js';
import type { Storage } from '../storage/storage.js';
import type { AccountRecord } from '../storage/records.js';
import { readCredentials } from './authorization-header.js';
import { hashToken } from './tokens.js';

/**
 * The publisher API's authentication, in the specified order:
 * `401 Could not validate credentials`, then `402 No active subscription was found`.
 */
export async function authenticateAccount(storage: Storage, request: CoreRequest): Promise<AccountRecord> {
  const token = readCredentials(request.headers.authorization, 'Token');
  if (token === null) fail({ kind: 'unauthorized' });
  const account = await storage.findAccountByTokenHash(hashToken(token));
  if (account === null) fail({ kind: 'unauthorized' });
  if (account.subscription !== 'active') fail({ kind: 'subscription_required' });
  return account;
}
