/** Every outcome, counted since the transport was made (docs/contract/android-fcm.md#fcm-counter-names: named as the APNs transport's, for `@tilecast/metrics`). */
export interface FcmCounters {
  /** Messages FCM accepted (`200`). */
  sent: number;
  /** Attempts repeated after `429`, `5xx`, a lost stream, a timeout, a failed token request or a renewed access token. */
  retried: number;
  /** Pushes given up: expired, retries used up, refused (other 4xx, the access token refused), or the transport closed (outcomes `dropped` and `refused`). */
  dropped: number;
  /** Registration tokens removed after `404 UNREGISTERED` or `400 INVALID_ARGUMENT` naming the token. */
  tokensRemoved: number;
  /** Pushes to a device without a registration token. */
  skipped: number;
  /** Pushes not sent (or not retried) because a newer one for the same activity or widget came. */
  superseded: number;
  /** Requests cancelled for want of an answer within the request timeout. */
  timeouts: number;
  /** Connections opened to replace a lost one (GOAWAY, socket error, dead connection). */
  reconnects: number;
  /** Access tokens obtained from the token endpoint. */
  accessTokens: number;
  /** Messages sent without `content` because they would have exceeded 4,000 bytes. */
  contentLeftOut: number;
}

/** A transport's counters as it starts: every one at zero. */
export function zeroCounters(): FcmCounters {
  return {
    sent: 0,
    retried: 0,
    dropped: 0,
    tokensRemoved: 0,
    skipped: 0,
    superseded: 0,
    timeouts: 0,
    reconnects: 0,
    accessTokens: 0,
    contentLeftOut: 0,
  };
}
