import { LRUCache } from 'lru-cache';
import { fail, isStorageUnavailable, isTilecastError } from '../errors.js';
import type { CoreRequest } from '../http/types.js';
import type { AccountRecord } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { readCredentials, soleAuthorization } from './authorization-header.js';
import { hashToken } from './tokens.js';

/** A publisher as authenticated for one request. */
export interface PublisherCredential {
  account: AccountRecord;
  /** The presented token's hash: writes carry it as their guard (`WriteGuard.tokenHash`). */
  tokenHash: string;
  /** Read from the store for this request (false: from this instance's cache, not yet re-checked). */
  confirmed: boolean;
}

/** What the cache keeps of a credential. */
interface CachedCredential {
  account: AccountRecord;
  tokenHash: string;
}

/** How many publisher credentials an instance remembers. */
const CACHE_ENTRIES = 10_000;

/**
 * The publisher API's authentication, in the specified order: `401 Could not validate
 * credentials`, then `402 No active subscription was found`.
 *
 * Publishing may start from a credential cached by this instance (no hash, no store
 * round trip). That is safe because a cached credential decides nothing on its own: the
 * write carries the token hash as a guard that the store checks in the write itself, and
 * any refusal is only given after a fresh lookup (`publishAs`). A rotated token or an
 * ended subscription therefore stops working at once, on every instance.
 * Keys are the Authorization header values as received (they hold tokens, like the
 * request buffers do; the cache lives only in this process's memory).
 */
export class PublisherCredentials {
  readonly #cache = new LRUCache<string, CachedCredential>({ max: CACHE_ENTRIES });
  /**
   * The last header found in the cache, and its entry: a publisher sends its updates one
   * after another with one token, and comparing a header with the last one is cheaper than
   * hashing it for the cache. Any change to the cache forgets it.
   */
  #last: { header: string; entry: CachedCredential } | undefined;

  /**
   * `noteAccount`, when given, is told the account of each request it authenticates (the
   * request observation's account id).
   */
  constructor(
    private readonly storage: Storage,
    private readonly noteAccount?: (request: CoreRequest, accountId: string) => void,
  ) {}

  /**
   * Looks the token up in the store (401, 402) and remembers the answer for later writes.
   * Every publisher endpoint but the two `PATCH`es (see `publishAs`) authenticates here.
   */
  async authenticate(request: CoreRequest): Promise<PublisherCredential> {
    const header = soleAuthorization(request.headers.authorization);
    const token = header === undefined ? null : readCredentials(header, 'Token');
    if (header === undefined || token === null) fail({ kind: 'unauthorized' });
    const tokenHash = hashToken(token);
    const account = await this.storage.findAccountByTokenHash(tokenHash);
    this.#last = undefined;
    if (account === null || account.subscription !== 'active') {
      this.#cache.delete(header);
      fail(account === null ? { kind: 'unauthorized' } : { kind: 'subscription_required' });
    }
    this.#cache.set(header, { account, tokenHash });
    if (this.noteAccount !== undefined) this.noteAccount(request, account.id);
    return { account, tokenHash, confirmed: true };
  }

  /** The cached credential for this request's header, if any (to be confirmed by a guarded write). */
  #recall(request: CoreRequest): PublisherCredential | undefined {
    const header = soleAuthorization(request.headers.authorization);
    const hit = header === undefined ? undefined : this.#lookUp(header);
    if (hit === undefined) return undefined;
    if (this.noteAccount !== undefined) this.noteAccount(request, hit.account.id);
    return { account: hit.account, tokenHash: hit.tokenHash, confirmed: false };
  }

  #lookUp(header: string): CachedCredential | undefined {
    const last = this.#last;
    if (last !== undefined && last.header === header) return last.entry;
    const entry = this.#cache.get(header);
    if (entry !== undefined) this.#last = { header, entry };
    return entry;
  }

  /**
   * Runs a guarded publisher write. With a cached credential, success was confirmed by
   * the write's guard; a refusal of any kind is answered only after a fresh lookup (a
   * stale token gets its 401 or 402, never another answer). If the fresh lookup finds the
   * credential good after all, the write runs again once with it. `write` must not read
   * the request body twice (see `once.ts`), and fails by rejecting, never by throwing.
   */
  publishAs<T>(request: CoreRequest, write: (credential: PublisherCredential) => Promise<T>): Promise<T> {
    // Promise steps rather than an async function: this wraps every publisher write.
    const cached = this.#recall(request);
    if (cached === undefined) return this.authenticate(request).then(write);
    return write(cached).catch(async (error: unknown) => {
      // The store is down: a second lookup would only wait out another deadline.
      if (isStorageUnavailable(error)) throw error;
      const fresh = await this.authenticate(request);
      const guardRefused = isTilecastError(error) && error.error.kind === 'unauthorized';
      if (guardRefused) return write(fresh);
      throw error;
    });
  }
}
