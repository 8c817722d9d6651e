import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Storage } from '../storage/storage.js';

/**
 * How often an instance re-checks the credentials behind its open streams. A change ends
 * the streams within this plus a store round trip (docs/contract/events-and-webhooks.md#stream-revocation: 5 s at most).
 */
export const DEFAULT_CREDENTIAL_CHECK_MS = 2_000;

/** An open `GET /events` stream and the token hash it was opened with (the stream itself: no record per stream). */
export interface AccountCredentialHolder {
  readonly accountId: string;
  readonly tokenHash: string;
  /** The token was rotated, the subscription ended or the account deleted: end the stream. */
  credentialRevoked(): void;
}

/** An open `GET /device/stream` and the device token hash it was opened with. */
export interface DeviceCredentialHolder {
  readonly deviceId: string;
  readonly tokenHash: string;
  /** The device was removed or its token changed: end the stream. */
  credentialRevoked(): void;
}

/**
 * Ends this instance's open streams whose credentials no longer hold. One timer and one
 * store call (`checkCredentials`) per interval for all of them, not one per stream; it
 * reads the store, so a change made through any instance is seen. A failed check ends
 * nothing (an outage is not a revocation) and is tried again at the next interval.
 */
export interface CredentialWatch {
  watchAccount(stream: AccountCredentialHolder): void;
  watchDevice(stream: DeviceCredentialHolder): void;
  unwatch(stream: AccountCredentialHolder | DeviceCredentialHolder): void;
  close(): void;
}

export function createCredentialWatch(storage: Storage, clock: Clock, logger: Logger, intervalMs: number): CredentialWatch {
  const accounts = new Set<AccountCredentialHolder>();
  const devices = new Set<DeviceCredentialHolder>();
  let timer: unknown;
  let scheduled = false;
  let checking = false;

  // Only an explicit `false` ends a stream: a short or odd answer keeps it.
  const endRevoked = <T extends { credentialRevoked(): void }>(streams: T[], valid: boolean[], watched: Set<T>): number => {
    let ended = 0;
    for (let i = 0; i < streams.length; i++) {
      if (valid[i] === false && watched.delete(streams[i]!)) {
        streams[i]!.credentialRevoked();
        ended += 1;
      }
    }
    return ended;
  };
  const checkAll = async (): Promise<void> => {
    scheduled = false;
    if (accounts.size + devices.size === 0) return;
    checking = true;
    const accountStreams = [...accounts];
    const deviceStreams = [...devices];
    try {
      const validity = await storage.checkCredentials({
        accounts: accountStreams.map(({ accountId, tokenHash }) => ({ accountId, tokenHash })),
        devices: deviceStreams.map(({ deviceId, tokenHash }) => ({ deviceId, tokenHash })),
      });
      const ended = endRevoked(accountStreams, validity.accounts, accounts) + endRevoked(deviceStreams, validity.devices, devices);
      if (ended > 0) logger.info('streams ended: their credentials changed', { streams: ended });
    } catch (error) {
      logger.warn('stream credential check failed', { error: String(error) });
    } finally {
      checking = false;
      schedule();
    }
  };
  // The next check is timed from the end of the last one: checks never overlap.
  const schedule = () => {
    if (scheduled || checking || accounts.size + devices.size === 0) return;
    scheduled = true;
    timer = clock.setTimeout(() => void checkAll(), intervalMs);
  };

  return {
    watchAccount(stream) {
      accounts.add(stream);
      schedule();
    },
    watchDevice(stream) {
      devices.add(stream);
      schedule();
    },
    unwatch(stream) {
      if ('accountId' in stream) accounts.delete(stream);
      else devices.delete(stream);
    },
    close() {
      accounts.clear();
      devices.clear();
      clock.clearTimeout(timer);
      scheduled = false;
    },
  };
}
