import type { Logger } from '@tilecast/core';
import { answerFields, type DeliveryResult, type DeliveryRules, type RetryRules } from '@tilecast/core/push';
import { aboutJob, type Job } from './job.js';
import type { ApnsEnvironment, ApnsRegistry } from './registry.js';

/** What a push came to: its outcome, with the reason when it was given up (a dead letter's reason). */
export type ApnsResult = DeliveryResult;

/** A push may be delivered up to an hour after it was handed over (`apns-expiration`). */
export const APNS_EXPIRATION_S = 3600;
/** `429` and `5xx` (and lost streams) are retried at most this many times. */
export const MAX_RETRIES = 2;

/**
 * How APNs requests are tried again, per-token pushes and broadcasts and channel
 * management alike (docs/contract/apns.md#apns-retry): `retry-after` honoured, no wait of
 * its own after a `429`; `403 ExpiredProviderToken` renews the provider token once
 * (docs/contract/apns.md#apns-expired-provider-token).
 */
export const APNS_RETRY_RULES: Pick<RetryRules, 'maxRetries' | 'quotaWaitMs' | 'refusesCredential'> = {
  maxRetries: MAX_RETRIES,
  quotaWaitMs: 0,
  refusesCredential: (answer) => answer.status === 403 && answer.reason === 'ExpiredProviderToken',
};

/** The answers that say a device token is dead. */
const DEAD_TOKENS: ReadonlySet<string> = new Set(['410 Unregistered', '400 BadDeviceToken', '400 DeviceTokenNotForTopic']);

export interface ApnsDeliveryContext {
  /** The origin a device's environment is sent to. */
  originOf: (environment: ApnsEnvironment) => string;
  /** Where dead tokens are removed, and an ended activity's update token forgotten. */
  registry: Pick<ApnsRegistry, 'removeToken' | 'forgetActivityToken'>;
  logger: Logger;
}

/**
 * APNs's part of the shared delivery loop (`PushDelivery`): a push expires an hour after
 * it is handed over (`apns-expiration`), dead tokens are removed, and a delivered end
 * forgets the activity's update token.
 */
export function apnsDeliveryRules({ originOf, registry, logger }: ApnsDeliveryContext): DeliveryRules<Job> {
  return {
    ...APNS_RETRY_RULES,
    name: 'apns',
    credentialName: 'provider token',
    tokenName: 'device token',
    deadTokens: DEAD_TOKENS,
    closedEndsFailures: false,
    sending(job, now) {
      const expiration = Math.floor(now / 1000) + APNS_EXPIRATION_S;
      job.expiration = expiration;
      job.expiresAtMs = expiration * 1000;
    },
    originOf: (job) => originOf(job.environment),
    // Once an end is sent, the activity's update token is of no more use.
    afterDelivered: (job) => (job.what === 'end' ? registry.forgetActivityToken(job.deviceId, job.owner, job.slug, job.token) : undefined),
    removeToken: (job) => registry.removeToken(job.deviceId, job.token),
    about: aboutJob,
    credentialRefused(job, renewed) {
      // A fresh (or already renewed) token refused as expired: a clock or key problem, not retried.
      logger.error('apns: provider token refused as expired', { ...aboutJob(job), renewed });
      return undefined;
    },
    refused(job, answer) {
      if (answer.kind === 'answer' && answer.status === 403) {
        logger.error('apns: request refused: check the team id, key id, key and bundle id', { ...aboutJob(job), ...answerFields(answer) });
      }
    },
  };
}
