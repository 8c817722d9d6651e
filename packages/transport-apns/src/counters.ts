import { type PushCounters, zeroPushCounters } from '@tilecast/core/push';

/**
 * Every outcome, counted since the transport was made: the counters every push transport
 * keeps (`PushCounters`: APNs's dead tokens are `410 Unregistered`, `400 BadDeviceToken` and
 * `400 DeviceTokenNotForTopic`; a push is skipped without a registration, push-to-start,
 * update or widgets token), and APNs's own.
 */
export interface ApnsCounters extends PushCounters {
  /** Provider tokens signed. */
  providerTokens: number;
  /** Broadcasts APNs accepted (`200`: docs/contract/broadcast-channels.md#broadcast-update-end). */
  broadcastsSent: number;
  /** Broadcasts given up (refused, retries used up, no channel to send to); their followers get per-token pushes. */
  broadcastsFailed: number;
  /** Channels created (docs/contract/broadcast-channels.md#broadcast-channel-on-start). */
  channelsCreated: number;
  /** Channels deleted after an end or when a start replaced them (docs/contract/broadcast-channels.md#broadcast-channel-deletion). */
  channelsDeleted: number;
  /** Creations refused with `400 CannotCreateChannelConfig` (docs/contract/broadcast-channels.md#broadcast-channel-limit). */
  channelLimitHits: number;
  /** Channels the start-up sweep deleted: held by no activity, or left after an end (docs/contract/broadcast-channels.md#broadcast-orphan-cleanup). */
  orphansDeleted: number;
}

/** A transport's counters as it starts: every one at zero. */
export function zeroCounters(): ApnsCounters {
  return {
    ...zeroPushCounters(),
    providerTokens: 0,
    broadcastsSent: 0,
    broadcastsFailed: 0,
    channelsCreated: 0,
    channelsDeleted: 0,
    channelLimitHits: 0,
    orphansDeleted: 0,
  };
}
