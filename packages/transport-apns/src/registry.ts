import { BatchReads } from '@tilecast/core/push';
import type { ActivityPushTarget, ApnsStore, HeldChannel } from '@tilecast/core/storage';

/** Which APNs environment a device's tokens belong to (the app's build decides it). */
export type ApnsEnvironment = 'production' | 'sandbox';

/** A device's APNs tokens, as its app registered them with `PUT /device/push`. */
export interface ApnsRegistrations {
  environment: ApnsEnvironment;
  /** ActivityKit push-to-start token (lower-case hex), or null. */
  pushToStart: string | null;
  /** WidgetKit push token (lower-case hex), or null. */
  widgets: string | null;
  /** The app follows broadcast channels (iOS 18 and later: docs/contract/broadcast-channels.md#broadcast-device-flag). */
  channels: boolean;
}

/** What `ApnsRegistry.activityTargetOf` answers. */
export interface ApnsActivityTarget {
  /** The device's registrations, as `registrationsOf` answers them. */
  registrations: ApnsRegistrations;
  /** The update token the device's Live Activity registered, or null. */
  token: string | null;
}

/**
 * A broadcast channel a stored activity holds (docs/contract/broadcast-channels.md#broadcast-channel-on-start),
 * with what the orphan sweep needs to tell a channel left after an end
 * (docs/contract/broadcast-channels.md#broadcast-orphan-cleanup).
 */
export type ApnsHeldChannel = Omit<HeldChannel, 'accountId'> & {
  /** The activity's account. */
  owner: string;
};

/**
 * Where the transport finds a device's APNs tokens, and tells what APNs said about them,
 * and where it keeps the activities' broadcast channels. The Tilecast stores implement it (docs/contract/device-api.md#device-sync-api, docs/contract/apns.md#apns-token-removal); `createMemoryApnsRegistry` is an
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
   * Optional: what an update or end push of activity `owner/slug` needs in one lookup, the
   * device's registrations with the activity's update token on it (null when it has
   * none); null when the device has no registrations. Without it the transport asks
   * `registrationsOf`, then `activityTokenOf`. The answer may be shared with other callers
   * asking for the same device at once: it is read, never changed.
   */
  activityTargetOf?(deviceId: string, owner: string, slug: string): Promise<ApnsActivityTarget | null>;
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
  /**
   * Sets the broadcast channel of activity `owner/slug` in `environment`; `null` forgets it
   * (the channel was deleted). With `ifChannel`, only while the stored one is still that id
   * (`null`: none stored). False, and nothing written, when there is no such activity, the
   * condition fails, or another activity or environment holds `channelId`
   * (docs/contract/broadcast-channels.md#broadcast-channel-on-start).
   */
  setActivityChannel(
    owner: string,
    slug: string,
    environment: ApnsEnvironment,
    channelId: string | null,
    condition?: { ifChannel?: string | null },
  ): Promise<boolean>;
  /** Every channel a stored activity holds, in no particular order (docs/contract/broadcast-channels.md#broadcast-orphan-cleanup). */
  heldChannels(): Promise<ApnsHeldChannel[]>;
}

/** What the memory registry knows of an activity: what the orphan sweep reads. */
export interface MemoryActivityState {
  live: boolean;
  updatedAt?: string | null;
  dismissalDelayS?: number;
}

/** An `ApnsRegistry` in memory, with the writes the device sync API would make. */
export interface MemoryApnsRegistry extends ApnsRegistry {
  /** `PUT /device/push`: an omitted token or flag is kept, `null` removes a token; `channels` is false until set. */
  register(deviceId: string, registration: { environment: ApnsEnvironment; pushToStart?: string | null; widgets?: string | null; channels?: boolean }): void;
  /** `PUT /device/activities/{owner}/{slug}/push`. */
  setActivityToken(deviceId: string, owner: string, slug: string, token: string): void;
  /** `DELETE /device/push`, or the device removed: every token of the device goes. */
  removeDevice(deviceId: string): void;
  /**
   * Makes activity `owner/slug` known, or changes its state (a start, an end, an update's
   * time; what is left out stays, or is null and 0 for a new one). As in a store,
   * `setActivityChannel` answers false for an activity not made known.
   */
  setActivity(owner: string, slug: string, state: MemoryActivityState): void;
  /** The activity is deleted: its channels are forgotten, and `setActivityChannel` answers false for it. */
  removeActivity(owner: string, slug: string): void;
}

const activityKey = (owner: string, slug: string): string => `${owner}/${slug}`;

/** An activity as the memory registry keeps it: its state and its channel per environment. */
interface MemoryActivity {
  owner: string;
  slug: string;
  live: boolean;
  updatedAt: string | null;
  dismissalDelayS: number;
  channels: Record<ApnsEnvironment, string | null>;
}

const ENVIRONMENTS: readonly ApnsEnvironment[] = ['production', 'sandbox'];

export function createMemoryApnsRegistry(): MemoryApnsRegistry {
  const registrations = new Map<string, ApnsRegistrations>();
  const activityTokens = new Map<string, Map<string, string>>();
  const activities = new Map<string, MemoryActivity>();
  /** Whether another activity or environment than `owner/slug` in `environment` holds `channelId`. */
  const heldElsewhere = (channelId: string, owner: string, slug: string, environment: ApnsEnvironment): boolean => {
    for (const activity of activities.values()) {
      for (const env of ENVIRONMENTS) {
        const self = activity.owner === owner && activity.slug === slug && env === environment;
        if (!self && activity.channels[env] === channelId) return true;
      }
    }
    return false;
  };
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
    // docs/contract/broadcast-channels.md#broadcast-channel-on-start: one activity and environment per channel id.
    async setActivityChannel(owner, slug, environment, channelId, condition) {
      const activity = activities.get(activityKey(owner, slug));
      if (activity === undefined) return false;
      if (condition?.ifChannel !== undefined && activity.channels[environment] !== condition.ifChannel) return false;
      if (channelId !== null && heldElsewhere(channelId, owner, slug, environment)) return false;
      activity.channels[environment] = channelId;
      return true;
    },
    async heldChannels() {
      const held: ApnsHeldChannel[] = [];
      for (const { owner, slug, live, updatedAt, dismissalDelayS, channels } of activities.values()) {
        for (const environment of ENVIRONMENTS) {
          const channelId = channels[environment];
          if (channelId !== null) held.push({ owner, slug, environment, channelId, live, updatedAt, dismissalDelayS });
        }
      }
      return held;
    },
    register(deviceId, { environment, pushToStart, widgets, channels }) {
      const previous = registrations.get(deviceId);
      registrations.set(deviceId, {
        environment,
        pushToStart: pushToStart === undefined ? (previous?.pushToStart ?? null) : (pushToStart?.toLowerCase() ?? null),
        widgets: widgets === undefined ? (previous?.widgets ?? null) : (widgets?.toLowerCase() ?? null),
        channels: channels ?? previous?.channels ?? false,
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
    setActivity(owner, slug, state) {
      const key = activityKey(owner, slug);
      const previous = activities.get(key);
      activities.set(key, {
        owner,
        slug,
        live: state.live,
        updatedAt: state.updatedAt === undefined ? (previous?.updatedAt ?? null) : state.updatedAt,
        dismissalDelayS: state.dismissalDelayS ?? previous?.dismissalDelayS ?? 0,
        channels: previous?.channels ?? { production: null, sandbox: null },
      });
    },
    removeActivity(owner, slug) {
      activities.delete(activityKey(owner, slug));
    },
  };
}

/**
 * The `ApnsRegistry` of a Tilecast store: the tokens the device sync API registered
 * (`PUT /device/push`, `PUT /device/activities/{owner}/{slug}/push`), and what APNs said
 * about them written back, so that every instance sharing the store sees it; the
 * activities' broadcast channels are stored with them (the owner is the account id). Pass the
 * same `Storage` as to `createTilecast`:
 * `createApnsTransport({ ..., registry: apnsRegistryFrom(storage) })`.
 */
export function apnsRegistryFrom(store: ApnsStore): ApnsRegistry {
  return {
    ...batchedReads(store),
    activityTokenOf: (deviceId, owner, slug) => store.getActivityPushToken(deviceId, owner, slug),
    forgetActivityToken: (deviceId, owner, slug, token) => store.forgetActivityPushToken(deviceId, owner, slug, { ifToken: token }),
    removeToken: (deviceId, token) => store.removeApnsToken(deviceId, token),
    setActivityChannel: (owner, slug, environment, channelId, condition) => store.setActivityChannel(owner, slug, environment, channelId, condition),
    heldChannels: async () => (await store.listActivityChannels()).map(({ accountId, ...held }) => ({ owner: accountId, ...held })),
  };
}

/**
 * The lookups of a fan-out, read in batches (`BatchReads`) when the store has the batch
 * reads: the pushes the transport starts in one turn (docs/decisions/0058-apns-pacing.md),
 * and those started while that read is out, are looked up in one statement instead of one
 * per device (and, for an activity's update, one instead of two in a row). A store without
 * them is read one device at a time.
 */
function batchedReads(store: ApnsStore): Pick<ApnsRegistry, 'registrationsOf' | 'activityTargetOf'> {
  const { getApnsRegistrations, getActivityPushTargets } = store;
  let registrationsOf: ApnsRegistry['registrationsOf'] = (deviceId) => store.getApnsRegistration(deviceId);
  if (getApnsRegistrations !== undefined) {
    const reads = new BatchReads<ApnsRegistrations>();
    const read = (deviceIds: readonly string[]) => getApnsRegistrations.call(store, deviceIds);
    registrationsOf = async (deviceId) => (await reads.lookup('', deviceId, read)) ?? null;
  }
  if (getActivityPushTargets === undefined) return { registrationsOf };
  const targets = new BatchReads<ActivityPushTarget>();
  return {
    registrationsOf,
    async activityTargetOf(deviceId, owner, slug) {
      // One batch per activity; the owner's length keeps two pairs from ever sharing a key.
      const group = `${owner.length}:${owner}/${slug}`;
      const target = await targets.lookup(group, deviceId, (deviceIds) => getActivityPushTargets.call(store, owner, slug, deviceIds));
      return target === undefined ? null : { registrations: target.registration, token: target.token };
    },
  };
}
