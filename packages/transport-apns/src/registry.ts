import type { ApnsStore } from '@tilecast/core/storage';

/** Which APNs environment a device's tokens belong to (the app's build decides it). */
export type ApnsEnvironment = 'production' | 'sandbox';

/** A device's APNs tokens, as its app registered them with `PUT /device/push`. */
export interface ApnsRegistrations {
  environment: ApnsEnvironment;
  /** ActivityKit push-to-start token (lower-case hex), or null. */
  pushToStart: string | null;
  /** WidgetKit push token (lower-case hex), or null. */
  widgets: string | null;
}

/**
 * Where the transport finds a device's APNs tokens, and tells what APNs said about them.
 * The Tilecast stores implement it (docs/contract/device-api.md#device-sync-api, docs/contract/apns.md#apns-token-removal); `createMemoryApnsRegistry` is an
 * in-memory one for tests and embedders. Every method may be called concurrently.
 *
 * Tokens are lower-case hex. Update tokens of a device use its registered environment:
 * a device without registrations (no `PUT /device/push`) receives no push at all.
 */
export interface ApnsRegistry {
  /** The device's registrations, or null when it has none (or does not exist). */
  registrationsOf(deviceId: string): Promise<ApnsRegistrations | null>;
  /** The update token the device's Live Activity for `owner/slug` registered, or null. */
  activityTokenOf(deviceId: string, owner: string, slug: string): Promise<string | null>;
  /**
   * Forgets the activity's update token after its `end` was sent, but only while it is
   * still `token`: a token the app registered meanwhile (a new Live Activity) stays.
   */
  forgetActivityToken(deviceId: string, owner: string, slug: string, token: string): Promise<void>;
  /**
   * APNs refused `token` for good (`410 Unregistered`, `400 BadDeviceToken`, `400
   * DeviceTokenNotForTopic`): removes it wherever the device registered it (push-to-start,
   * widgets, any activity's update token). A token the device no longer holds is a no-op.
   */
  removeToken(deviceId: string, token: string): Promise<void>;
}

/** An `ApnsRegistry` in memory, with the writes the device sync API would make. */
export interface MemoryApnsRegistry extends ApnsRegistry {
  /** `PUT /device/push`: an omitted token is kept, `null` removes it. */
  register(deviceId: string, registration: { environment: ApnsEnvironment; pushToStart?: string | null; widgets?: string | null }): void;
  /** `PUT /device/activities/{owner}/{slug}/push`. */
  setActivityToken(deviceId: string, owner: string, slug: string, token: string): void;
  /** `DELETE /device/push`, or the device removed: every token of the device goes. */
  removeDevice(deviceId: string): void;
}

const activityKey = (owner: string, slug: string): string => `${owner}/${slug}`;

export function createMemoryApnsRegistry(): MemoryApnsRegistry {
  const registrations = new Map<string, ApnsRegistrations>();
  const activityTokens = new Map<string, Map<string, string>>();
  return {
    async registrationsOf(deviceId) {
      const found = registrations.get(deviceId);
      return found === undefined ? null : { ...found };
    },
    async activityTokenOf(deviceId, owner, slug) {
      return activityTokens.get(deviceId)?.get(activityKey(owner, slug)) ?? null;
    },
    async forgetActivityToken(deviceId, owner, slug, token) {
      const tokens = activityTokens.get(deviceId);
      const key = activityKey(owner, slug);
      if (tokens?.get(key) === token) tokens.delete(key);
    },
    async removeToken(deviceId, token) {
      const found = registrations.get(deviceId);
      if (found?.pushToStart === token) found.pushToStart = null;
      if (found?.widgets === token) found.widgets = null;
      const tokens = activityTokens.get(deviceId);
      for (const [key, value] of tokens ?? []) if (value === token) tokens!.delete(key);
    },
    register(deviceId, { environment, pushToStart, widgets }) {
      const previous = registrations.get(deviceId);
      registrations.set(deviceId, {
        environment,
        pushToStart: pushToStart === undefined ? (previous?.pushToStart ?? null) : (pushToStart?.toLowerCase() ?? null),
        widgets: widgets === undefined ? (previous?.widgets ?? null) : (widgets?.toLowerCase() ?? null),
      });
    },
    setActivityToken(deviceId, owner, slug, token) {
      let tokens = activityTokens.get(deviceId);
      if (tokens === undefined) activityTokens.set(deviceId, (tokens = new Map()));
      tokens.set(activityKey(owner, slug), token.toLowerCase());
    },
    removeDevice(deviceId) {
      registrations.delete(deviceId);
      activityTokens.delete(deviceId);
    },
  };
}

/**
 * The `ApnsRegistry` of a Tilecast store: the tokens the device sync API registered
 * (`PUT /device/push`, `PUT /device/activities/{owner}/{slug}/push`), and what APNs said
 * about them written back, so that every instance sharing the store sees it. Pass the
 * same `Storage` as to `createTilecast`:
 * `createApnsTransport({ ..., registry: apnsRegistryFrom(storage) })`.
 */
export function apnsRegistryFrom(store: ApnsStore): ApnsRegistry {
  return {
    registrationsOf: (deviceId) => store.getApnsRegistration(deviceId),
    activityTokenOf: (deviceId, owner, slug) => store.getActivityPushToken(deviceId, owner, slug),
    forgetActivityToken: (deviceId, owner, slug, token) => store.forgetActivityPushToken(deviceId, owner, slug, { ifToken: token }),
    removeToken: (deviceId, token) => store.removeApnsToken(deviceId, token),
  };
}
