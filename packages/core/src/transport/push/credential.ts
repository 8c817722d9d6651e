/** What renewing a credential came to: the `authorization` to send, or why there is none. */
export type CredentialRenewal =
  | { kind: 'ok'; authorization: string }
  /** The issuer refused (a wrong key or account): another try gives the same. */
  | { kind: 'refused' }
  /** No usable answer from the issuer: worth another try, as a lost request is. */
  | { kind: 'failed'; error: string };

/**
 * What a transport's requests are sent with (APNs's provider token, FCM's access token):
 * one in use for every request, renewed when due and, once per push, when the service
 * refuses it. `valid` is on every push's path, so it answers without a promise.
 */
export interface PushCredential {
  /** The `authorization` to send now, or null when it must be renewed first (`renew`). */
  valid(): string | null;
  /** A new one, when `valid` answered null (callers waiting meanwhile may share one renewal). */
  renew(): Promise<CredentialRenewal>;
  /**
   * The service refused `used`. True when the push may be sent again (with `valid` or
   * `renew`): `used` was replaced meanwhile, or it is renewed (or invalidated) now. False
   * when renewing again would not help or is not allowed yet.
   */
  refused(used: string): boolean;
}
