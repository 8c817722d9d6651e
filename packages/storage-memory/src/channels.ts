import type { ActivityRecord, ApnsEnvironment, ApnsStore, HeldChannel } from '@tilecast/core/storage';
import { byCodeUnit, type MemoryState } from './state.js';

/** The activity and environment a channel id belongs to. */
export interface ChannelHolder {
  accountId: string;
  slug: string;
  environment: ApnsEnvironment;
}

/**
 * The devices of one account that follow channels in one environment. A broadcast
 * update lists them once (the job leaves them out), so the listing is kept in code-unit
 * order between calls: a call after changes sorts only what was added since the last one
 * and merges it in, O(n) rather than a full sort of 100,000 ids per update.
 */
export interface Followers {
  /** Every follower now. */
  ids: Set<string>;
  /** Followers in code-unit order as of the last listing; may still hold ids removed since. */
  sorted: string[];
  /** Followers added since the last listing, unsorted. */
  added: string[];
  /** Some id of `sorted` may have been removed since the last listing. */
  removed: boolean;
}

/** The channel followers of one account, by environment. */
export interface AccountFollowers {
  production: Followers;
  sandbox: Followers;
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

const noFollowers = (): Followers => ({ ids: new Set(), sorted: [], added: [], removed: false });

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
    const followers = account[previous.environment];
    followers.ids.delete(deviceId);
    followers.removed = true;
    account.both = null;
    if (account.production.ids.size === 0 && account.sandbox.ids.size === 0) state.channelFollowers.delete(previous.accountId);
    state.followerOf.delete(deviceId);
  }
  if (place === null) return;
  let account = state.channelFollowers.get(place.accountId);
  if (account === undefined) state.channelFollowers.set(place.accountId, (account = { production: noFollowers(), sandbox: noFollowers(), both: null }));
  account[place.environment].ids.add(deviceId);
  account[place.environment].added.push(deviceId);
  account.both = null;
  state.followerOf.set(deviceId, { ...place });
}

/** Two ascending lists merged into one, keeping only ids `keep` accepts, each once. */
function mergeSorted(a: readonly string[], b: readonly string[], keep: (id: string) => boolean): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const id = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (keep(id) && out[out.length - 1] !== id) out.push(id);
  }
  return out;
}

/** The followers in code-unit order, brought up to date (the returned array is the cache: copy before handing it out). */
function sortedFollowers(followers: Followers): readonly string[] {
  if (followers.added.length > 0 || followers.removed) {
    const added = followers.added.sort(byCodeUnit);
    followers.sorted = mergeSorted(followers.sorted, added, (id) => followers.ids.has(id));
    followers.added = [];
    followers.removed = false;
  }
  return followers.sorted;
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
      if (production !== sandbox) return [...sortedFollowers(account[production ? 'production' : 'sandbox'])];
      if (!production) return [];
      // Kept too: a broadcast in both environments lists both on every update. A device has
      // one registration, so the two lists never share an id.
      account.both ??= mergeSorted(sortedFollowers(account.production), sortedFollowers(account.sandbox), () => true);
      return [...account.both];
    },
  };
}
