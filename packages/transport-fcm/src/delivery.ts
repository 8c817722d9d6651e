import type { Logger } from '@tilecast/core';
import type { DeliveryResult, DeliveryRules } from '@tilecast/core/push';
import type { FcmCounters } from './counters.js';
import { aboutJob, type Job } from './job.js';
import { FCM_TTL_S } from './message.js';
import type { FcmRegistry } from './registry.js';
import { TOKEN_FIELD } from './request.js';

/**
 * What a push came to: its outcome, with the reason when it was given up (a dead letter's
 * reason: FCM's error code, e.g. `INVALID_ARGUMENT`, or why it was given up: `retries used up: UNAVAILABLE`).
 */
export type FcmResult = DeliveryResult;

/** `429`, `5xx`, lost streams and failed token requests are retried at most this many times. */
export const MAX_RETRIES = 2;
/** After `429` without a `Retry-After`, the wait before the retry is at least this. */
export const QUOTA_WAIT_MS = 60_000;

/** The answers that say the registration token is dead (docs/contract/android-fcm.md#fcm-answers, docs/contract/android-fcm.md#fcm-answers-detail). */
const DEAD_TOKENS: ReadonlySet<string> = new Set(['404 UNREGISTERED', `400 INVALID_ARGUMENT ${TOKEN_FIELD}`]);

export interface FcmDeliveryContext {
  /** The send host's origin. */
  origin: string;
  /** Where refused registration tokens are removed. */
  registry: Pick<FcmRegistry, 'remove'>;
  /** Where messages sent without their `content` are counted. */
  counters: Pick<FcmCounters, 'contentLeftOut'>;
  logger: Logger;
}

/**
 * FCM's part of the shared delivery loop (`PushDelivery`; docs/contract/android-fcm.md#fcm-answers):
 * a message expires with its TTL, counted from when it is handed over; `429` waits for its
 * `Retry-After` or at least a minute; `401` renews the access token once; a failure
 * answered once the transport is closed is not tried again; a registration token is
 * forgotten, unless the app registered another meanwhile (the registry's `remove`).
 */
export function fcmDeliveryRules({ origin, registry, counters, logger }: FcmDeliveryContext): DeliveryRules<Job> {
  return {
    maxRetries: MAX_RETRIES,
    quotaWaitMs: QUOTA_WAIT_MS,
    refusesCredential: (answer) => answer.status === 401,
    name: 'fcm',
    credentialName: 'access token',
    tokenName: 'registration token',
    deadTokens: DEAD_TOKENS,
    closedEndsFailures: true,
    sending(job, now) {
      job.expiresAtMs = now + FCM_TTL_S * 1000;
      if (job.contentLeftOut) counters.contentLeftOut += 1;
    },
    originOf: () => origin,
    afterDelivered: () => undefined,
    removeToken: (job) => registry.remove(job.deviceId, job.token),
    about: aboutJob,
    credentialRefused(job, renewed, answer) {
      // A `401` on a renewed token, or on one invalidated less than a minute ago: the account cannot send.
      logger.error('fcm: access token refused (401): check that the service account may send with Firebase Cloud Messaging', {
        ...aboutJob(job),
        renewed,
      });
      return answer;
    },
  };
}
