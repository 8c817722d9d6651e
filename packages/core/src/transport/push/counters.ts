/**
 * The counters every push transport keeps, named alike so that `@tilecast/metrics` reads
 * each transport's `counters()` the same way; a transport adds its own (APNs's provider
 * tokens and broadcasts, FCM's access tokens). The delivery loop (`PushDelivery`) counts
 * into them as pushes go.
 */
export interface PushCounters {
  /** Pushes the service accepted (`200`). */
  sent: number;
  /** Attempts repeated after `429`, `5xx`, a lost stream, a timeout, a failed credential request or a renewed credential. */
  retried: number;
  /** Pushes given up: expired, retries used up, refused (other 4xx, the credential refused), or the transport closed (outcomes `dropped` and `refused`). */
  dropped: number;
  /** Device tokens removed after an answer that says the token is dead. */
  tokensRemoved: number;
  /** Pushes with no token to go to. */
  skipped: number;
  /** Pushes not sent (or not retried) because a newer one for the same activity or widget came. */
  superseded: number;
  /** Requests cancelled for want of an answer within the request timeout. */
  timeouts: number;
  /** Connections opened to replace a lost one (GOAWAY, socket error, dead connection). */
  reconnects: number;
}

/** The shared counters as a transport starts: every one at zero (a transport spreads its own after them). */
export function zeroPushCounters(): PushCounters {
  return { sent: 0, retried: 0, dropped: 0, tokensRemoved: 0, skipped: 0, superseded: 0, timeouts: 0, reconnects: 0 };
}
