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
  };
}
