import type { ActivityPush } from '@tilecast/core';
import type { FcmRequest } from './request.js';

/**
 * A push at work: the request as sent, and what the transport keeps about it. One object
 * per push, built whole by `MessageBuilder` (message.ts) and then only stamped (seq,
 * expiry, the authorization of its last attempt), so that every job has the same shape.
 */
export interface Job extends FcmRequest {
  deviceId: string;
  /** The device's registration token (in the body too): removed when FCM refuses it. */
  token: string;
  /** Pushes with the same key supersede each other (newest wins). */
  key: string;
  seq: number;
  expiresAtMs: number;
  /** The `authorization` its last attempt was sent with (a `401` invalidates that one). */
  authorization: string;
  /** What the logs name the push by (never a token). */
  owner: string;
  slug: string;
  /** The activity's event, or `changed` for a widget. */
  what: ActivityPush['phase'] | 'changed';
  /** Gives up the push's admission slot (before it waits to retry, and when it is done). */
  leave: () => void;
}

/** What the logs say about a push. */
export const aboutJob = (job: Job): Record<string, unknown> => ({ deviceId: job.deviceId, owner: job.owner, slug: job.slug, event: job.what });
