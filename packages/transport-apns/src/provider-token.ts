import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { Clock } from '@tilecast/core';
import type { CredentialRenewal, PushCredential } from '@tilecast/core/push';

/** APNs refuses a provider token more than one hour old. */
export const PROVIDER_TOKEN_MAX_AGE_MS = 60 * 60_000;
/** APNs answers `429 TooManyProviderTokenUpdates` to a token renewed sooner than this. */
export const PROVIDER_TOKEN_MIN_RENEWAL_MS = 20 * 60_000;
/** A token is renewed at this age, inside Apple's window of 20 to 60 minutes. */
export const PROVIDER_TOKEN_RENEW_AT_MS = 50 * 60_000;

export const base64url = (data: Buffer | string): string => Buffer.from(data).toString('base64url');

/** Reads an APNs signing key (the `.p8` PEM text) and checks it is an ES256 (P-256) key. */
export function readSigningKey(key: string | KeyObject): KeyObject {
  let object: KeyObject;
  try {
    object = typeof key === 'string' ? createPrivateKey(key) : key;
  } catch {
    // Never echo the key: the message says what is wrong, not what was given.
    throw new Error('transport-apns: signingKey is not a PEM private key (the .p8 file text)');
  }
  if (object.type !== 'private' || object.asymmetricKeyType !== 'ec' || object.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new Error('transport-apns: signingKey must be an EC P-256 private key (an APNs .p8 key)');
  }
  return object;
}

/** Signs a provider token: ES256, header `{alg, kid}`, claims `{iss, iat}`. */
export function signProviderToken(key: KeyObject, keyId: string, teamId: string, iat: number): string {
  const input = `${base64url(JSON.stringify({ alg: 'ES256', kid: keyId }))}.${base64url(JSON.stringify({ iss: teamId, iat }))}`;
  const signature = sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' });
  return `${input}.${base64url(signature)}`;
}

/**
 * The one provider token in use. It is reused for every request and renewed when it is
 * `renewAtMs` old; after a `403 ExpiredProviderToken` it is renewed at most once per
 * token, and never sooner than 20 minutes after the previous one, so a flood of 403s
 * (or a clock that disagrees with Apple's) cannot turn into a renewal storm.
 */
export class ProviderToken {
  private token: string | null = null;
  /** The `authorization` header of `token`, made once per token rather than per push. */
  private header = '';
  private issuedAtMs = 0;
  /** How many tokens were signed (for the counters). */
  issued = 0;

  constructor(
    private readonly key: KeyObject,
    private readonly keyId: string,
    private readonly teamId: string,
    private readonly clock: Clock,
    private readonly renewAtMs = PROVIDER_TOKEN_RENEW_AT_MS,
  ) {}

  /** The `authorization` header to send now: the token in use, signed anew when it is due. */
  authorization(): string {
    if (this.token === null || this.clock.now() - this.issuedAtMs >= this.renewAtMs) this.issue();
    return this.header;
  }

  /**
   * APNs refused `used` (an `authorization` this answered) as expired. True when the
   * request may be retried with `authorization()`: the token was already renewed since, or
   * it is renewed now. False when renewing would break Apple's 20-minute rule (the token
   * is younger than that).
   */
  refused(used: string): boolean {
    if (used !== this.header) return true;
    if (this.clock.now() - this.issuedAtMs < PROVIDER_TOKEN_MIN_RENEWAL_MS) return false;
    this.issue();
    return true;
  }

  private issue(): void {
    const iat = Math.floor(this.clock.now() / 1000);
    this.token = signProviderToken(this.key, this.keyId, this.teamId, iat);
    this.header = `bearer ${this.token}`;
    this.issuedAtMs = iat * 1000;
    this.issued += 1;
  }
}

/** A credential that always has an `authorization` to send (`valid` never answers null). */
export type ProviderCredential = Omit<PushCredential, 'valid'> & { valid(): string };

/**
 * The provider token as the credential of per-token pushes, broadcasts and channel
 * management (`@tilecast/core/push`), the tokens signed counted into `counters` as they go.
 * A token is signed on the spot, so `valid` always answers one.
 */
export function providerCredential(provider: ProviderToken, counters: { providerTokens: number }): ProviderCredential {
  const valid = (): string => {
    const authorization = provider.authorization();
    counters.providerTokens = provider.issued;
    return authorization;
  };
  return {
    valid,
    renew: (): Promise<CredentialRenewal> => Promise.resolve({ kind: 'ok', authorization: valid() }),
    refused(used) {
      const again = provider.refused(used);
      counters.providerTokens = provider.issued;
      return again;
    },
  };
}
