import { BatchReads } from '@tilecast/core/push';

/**
 * Where the transport finds a device's FCM registration token, and tells what FCM said
 * about it. The Tilecast stores hold the tokens the apps registered with `PUT /device/fcm`
 * (docs/contract/android-fcm.md#fcm-device-token); `fcmRegistryFrom(storage)` reads them
 * there, and `createMemoryFcmRegistry` is an in-memory one for tests and embedders. Every
 * method may be called concurrently.
 */
export interface FcmRegistry {
  /** The device's registration token, or null when it has none (or does not exist). */
  tokenOf(deviceId: string): Promise<string | null>;
  /**
   * FCM refused `token` for good (`404 UNREGISTERED`, or `400 INVALID_ARGUMENT` naming the
   * token): forgets it, but only while it is still the device's token (a token the app
   * registered meanwhile stays).
   */
  remove(deviceId: string, token: string): Promise<void>;
}

/**
 * What `fcmRegistryFrom` needs of a store: its FCM token methods (the store's FCM concern),
 * as a structural type, so that this package needs no store at run time.
 */
export interface FcmTokenStore {
  getFcmToken(deviceId: string): Promise<string | null>;
  /**
   * Optional batch read (both Tilecast stores have it): the tokens of the devices that have
   * one. With it, `tokenOf` lookups made together are read in one call.
   */
  getFcmTokens?(deviceIds: readonly string[]): Promise<ReadonlyMap<string, string>>;
  /** Removes the device's token; with `ifToken`, only while it is that token. True when one was removed. */
  removeFcmToken(deviceId: string, condition?: { ifDevice?: { accountId: string; tokenHash: string }; ifToken?: string }): Promise<boolean>;
}

/**
 * The `FcmRegistry` of a Tilecast store: the tokens the device API registered, and the
 * ones FCM refuses removed there, so that every instance sharing the store sees it. Pass
 * the same `Storage` as to `createTilecast`:
 * `createFcmTransport({ ..., registry: fcmRegistryFrom(storage) })`.
 */
export function fcmRegistryFrom(store: FcmTokenStore): FcmRegistry {
  return {
    tokenOf: batchedTokenOf(store),
    remove: async (deviceId, token) => {
      await store.removeFcmToken(deviceId, { ifToken: token });
    },
  };
}

/**
 * `tokenOf`, read in batches (`BatchReads`) when the store has `getFcmTokens`: the pushes
 * the transport starts in one turn (docs/decisions/0058-apns-pacing.md), and those started
 * while that read is out, are looked up in one statement instead of one per device.
 * Otherwise one device at a time.
 */
function batchedTokenOf(store: FcmTokenStore): FcmRegistry['tokenOf'] {
  const { getFcmTokens } = store;
  if (getFcmTokens === undefined) return (deviceId) => store.getFcmToken(deviceId);
  const reads = new BatchReads<string>();
  const read = (deviceIds: readonly string[]) => getFcmTokens.call(store, deviceIds);
  return async (deviceId) => (await reads.lookup('', deviceId, read)) ?? null;
}

/** An `FcmRegistry` in memory, with the writes the device API would make. */
export interface MemoryFcmRegistry extends FcmRegistry {
  /** `PUT /device/fcm`: the device's token, replacing any other. */
  register(deviceId: string, token: string): void;
  /** `DELETE /device/fcm`, or the device removed. */
  removeDevice(deviceId: string): void;
}

export function createMemoryFcmRegistry(): MemoryFcmRegistry {
  const tokens = new Map<string, string>();
  return {
    async tokenOf(deviceId) {
      return tokens.get(deviceId) ?? null;
    },
    async remove(deviceId, token) {
      if (tokens.get(deviceId) === token) tokens.delete(deviceId);
    },
    register(deviceId, token) {
      tokens.set(deviceId, token);
    },
    removeDevice(deviceId) {
      tokens.delete(deviceId);
    },
  };
}
