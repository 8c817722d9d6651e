/** Every outcome, counted since the transport was made. */
export interface ApnsCounters {
  /** Pushes APNs accepted (`200`). */
  sent: number;
  /** Attempts repeated after `429`, `5xx`, a lost stream, a timeout or a renewed provider token. */
  retried: number;
  /** Pushes given up: expired, retries used up, refused (other 4xx), or the transport closed (outcomes `dropped` and `refused`). */
  dropped: number;
  /** Device tokens removed after `410 Unregistered`, `400 BadDeviceToken` or `400 DeviceTokenNotForTopic`. */
  tokensRemoved: number;
  /** Pushes with no token to go to (no registration, no push-to-start, update or widgets token). */
  skipped: number;
  /** Pushes not sent (or not retried) because a newer one for the same activity or widget came. */
  superseded: number;
  /** Requests cancelled for want of an answer within the request timeout. */
  timeouts: number;
  /** Connections opened to replace a lost one (GOAWAY, socket error, dead connection). */
  reconnects: number;
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
    sent: 0,
    retried: 0,
    dropped: 0,
    tokensRemoved: 0,
    skipped: 0,
    superseded: 0,
    timeouts: 0,
    reconnects: 0,
    providerTokens: 0,
    broadcastsSent: 0,
    broadcastsFailed: 0,
    channelsCreated: 0,
    channelsDeleted: 0,
    channelLimitHits: 0,
    orphansDeleted: 0,
  };
}
