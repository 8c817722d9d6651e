import type { ActivityPush } from '@tilecast/core';
import type { ApnsEnvironment } from './registry.js';
import type { ApnsRequest } from './request.js';

/**
 * A push at work: the request as sent, and what the transport keeps about it. One object
 * per push, built whole by `PushBuilder` (payloads.ts) and then only stamped (seq,
 * expiration), so that every job has the same shape.
 */
export interface Job extends ApnsRequest {
  deviceId: string;
  /** Pushes with the same key supersede each other (newest wins). */
  key: string;
  seq: number;
  environment: ApnsEnvironment;
  expiresAtMs: number;
  /** What the logs name the push by (never a token). */
  owner: string;
  slug: string;
  /** The activity's phase, or `widgets`. */
  what: ActivityPush['phase'] | 'widgets';
  /** Gives up the push's admission slot (before it waits to retry, and when it is done). */
  leave: () => void;
}

/** What the logs say about a push. */
export const aboutJob = (job: Job): Record<string, unknown> =>
  job.what === 'widgets'
    ? { deviceId: job.deviceId, owner: job.owner, slug: job.slug, push: 'widgets' }
    : { deviceId: job.deviceId, owner: job.owner, slug: job.slug, phase: job.what };
