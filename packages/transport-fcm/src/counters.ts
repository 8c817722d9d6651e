import { type PushCounters, zeroPushCounters } from '@tilecast/core/push';

/**
 * Every outcome, counted since the transport was made: the counters every push transport
 * keeps (`PushCounters`, named as the APNs transport's for `@tilecast/metrics`:
 * docs/contract/android-fcm.md#fcm-counter-names; FCM's dead tokens are `404 UNREGISTERED`
 * and `400 INVALID_ARGUMENT` naming the token), and FCM's own.
 */
export interface FcmCounters extends PushCounters {
  /** Access tokens obtained from the token endpoint. */
  accessTokens: number;
  /** Messages sent without `content` because they would have exceeded 4,000 bytes. */
  contentLeftOut: number;
}

/** A transport's counters as it starts: every one at zero. */
export function zeroCounters(): FcmCounters {
  return {
    ...zeroPushCounters(),
    accessTokens: 0,
    contentLeftOut: 0,
  };
}
