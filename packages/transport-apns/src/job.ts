import type { ActivityPush, WidgetPush } from '@tilecast/core';
import type { PushTicket } from '@tilecast/core/push';
import type { ActivityPayload } from './payloads.js';
import type { ApnsEnvironment } from './registry.js';
import type { ApnsRequest } from './request.js';

/**
 * A push as handed over, before it is looked up and built: what waits for admission. Its
 * key and seq come from `@tilecast/core/push`'s Superseding (the newest of a key wins).
 */
export type Ticket = ActivityTicket | WidgetTicket;

export interface ActivityTicket extends PushTicket {
  readonly push: ActivityPush;
  /** The push's time and payload, made once per update (`PushBuilder.activityPayload`). */
  readonly payload: ActivityPayload;
  /** The payload's time. */
  readonly at: number;
}

export interface WidgetTicket extends PushTicket {
  readonly push: WidgetPush;
  readonly payload: null;
  readonly at: null;
}

/**
 * A push at work: the request as sent, and what the transport keeps about it. One object
 * per push, built whole by `PushBuilder` (payloads.ts) and then only stamped (key, seq,
 * expiration, requested), so that every job has the same shape.
 */
export interface Job extends ApnsRequest {
  deviceId: string;
  /** Its ticket's: newer pushes of the same key supersede it. */
  seq: number;
  environment: ApnsEnvironment;
  expiresAtMs: number;
  /** What the logs name the push by (never a token). */
  owner: string;
  slug: string;
  /** The activity's phase, or `widgets`. */
  what: ActivityPush['phase'] | 'widgets';
  /** True while the connections have it (waiting for a stream, or for APNs's answer). */
  requested: boolean;
  /** Gives up the push's admission slot (before it waits to retry, and when it is done). */
  leave: () => void;
}

/** What the logs say about a push. */
export const aboutJob = (job: Job): Record<string, unknown> =>
  job.what === 'widgets'
    ? { deviceId: job.deviceId, owner: job.owner, slug: job.slug, push: 'widgets' }
    : { deviceId: job.deviceId, owner: job.owner, slug: job.slug, phase: job.what };
