import type { ActivityRecord, ApnsEnvironment, ApnsStore, HeldChannel } from '@tilecast/core/storage';
import { mergeSorted, SortedIds } from './sorted-ids.js';
import type { MemoryState } from './state.js';

/** The activity and environment a channel id belongs to. */
export interface ChannelHolder {
  accountId: string;
  slug: string;
  environment: ApnsEnvironment;
}

/** The channel followers of one account, by environment. */
export interface AccountFollowers {
  /**
   * The devices of the account that follow channels in each environment, kept in order
   * between listings: every broadcast update lists them (the job leaves them out).
   */
  production: SortedIds;
  sandbox: SortedIds;
  /** Both environments' followers merged, as of the last such listing; null after any change. */
  both: string[] | null;
}

const ENVIRONMENTS: readonly ApnsEnvironment[] = ['production', 'sandbox'];

/** An activity removed (or its account): its channel ids belong to nothing any more (docs/contract/broadcast-channels.md#broadcast-channel-on-start). */
export function releaseChannelsOf(state: MemoryState, activity: ActivityRecord): void {
  for (const environment of ENVIRONMENTS) {
    const channelId = activity.channels[environment];
    if (channelId !== null) state.channelHolders.delete(channelId);
  }
}

/** Where a device follows channels: its account and its registration's environment. */
export interface FollowerPlace {
  accountId: string;
  environment: ApnsEnvironment;
}

/** Files the device under the followers of its account in one environment, or under none (`null`). */
export function setFollower(state: MemoryState, deviceId: string, place: FollowerPlace | null): void {
  const previous = state.followerOf.get(deviceId);
  if (previous?.accountId === place?.accountId && previous?.environment === place?.environment) return;
  if (previous !== undefined) {
    const account = state.channelFollowers.get(previous.accountId)!;
    account[previous.environment].delete(deviceId);
    account.both = null;
    if (account.production.size === 0 && account.sandbox.size === 0) state.channelFollowers.delete(previous.accountId);
    state.followerOf.delete(deviceId);
  }
  if (place === null) return;
  let account = state.channelFollowers.get(place.accountId);
  if (account === undefined) state.channelFollowers.set(place.accountId, (account = { production: new SortedIds(), sandbox: new SortedIds(), both: null }));
  account[place.environment].add(deviceId);
  account.both = null;
  state.followerOf.set(deviceId, { ...place });
}

export function channelMethods(state: MemoryState): Pick<ApnsStore, 'setActivityChannel' | 'listActivityChannels' | 'listChannelFollowers'> {
  return {
    // ATOMIC: synchronous from the read of the stored id to the write
    // (docs/contract/broadcast-channels.md#broadcast-channel-on-start).
    async setActivityChannel(accountId, slug, environment, channelId, condition) {
      const activity = state.activities.get(accountId)?.get(slug);
      if (activity === undefined) return false;
      const stored = activity.channels[environment];
      if (condition?.ifChannel !== undefined && condition.ifChannel !== stored) return false;
      if (channelId !== null) {
        const holder = state.channelHolders.get(channelId);
        // A channel id belongs to one activity and environment.
        if (holder !== undefined && (holder.accountId !== accountId || holder.slug !== slug || holder.environment !== environment)) return false;
      }
      if (stored !== null) state.channelHolders.delete(stored);
      activity.channels[environment] = channelId;
      if (channelId !== null) state.channelHolders.set(channelId, { accountId, slug, environment });
      return true;
    },

    async listActivityChannels() {
      const held: HeldChannel[] = [];
      for (const [channelId, { accountId, slug, environment }] of state.channelHolders) {
        const activity = state.activities.get(accountId)!.get(slug)!;
        held.push({ accountId, slug, environment, channelId, live: activity.live, updatedAt: activity.updatedAt, dismissalDelayS: activity.dismissalDelayS });
      }
      return held;
    },

    async listChannelFollowers(accountId, environments) {
      const account = state.channelFollowers.get(accountId);
      if (account === undefined) return [];
      const production = environments.includes('production');
      const sandbox = environments.includes('sandbox');
      if (production !== sandbox) return [...account[production ? 'production' : 'sandbox'].sorted()];
      if (!production) return [];
      // Kept too: a broadcast in both environments lists both on every update. A device has
      // one registration, so the two lists never share an id.
      account.both ??= mergeSorted(account.production.sorted(), account.sandbox.sorted(), () => true);
      return [...account.both];
    },
  };
}
