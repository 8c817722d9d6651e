import type { ActivityPush, WidgetPush } from '@tilecast/core';
import type { PushTicket } from '@tilecast/core/push';
import type { Message } from './message.js';
import type { FcmRequest } from './request.js';

/**
 * A push as handed over, before it is looked up and built: what waits for admission. Its
 * key and seq come from `@tilecast/core/push`'s Superseding (the newest of a key wins).
 */
export type Ticket = ActivityTicket | WidgetTicket;

interface TicketBase extends PushTicket {
  /** The push's message but for the token, made once per push (`MessageBuilder`). */
  readonly message: Message;
}

export interface ActivityTicket extends TicketBase {
  readonly push: ActivityPush;
  /** The message's time. */
  readonly at: number;
}

export interface WidgetTicket extends TicketBase {
  readonly push: WidgetPush;
  readonly at: null;
}

/**
 * A push at work: the request as sent, and what the transport keeps about it. One object
 * per push, built whole by `MessageBuilder` (message.ts) and then only stamped (expiry,
 * requested), so that every job has the same shape.
 */
export interface Job extends FcmRequest {
  deviceId: string;
  /** Its ticket's: newer pushes of the same key supersede it. */
  seq: number;
  expiresAtMs: number;
  /** What the logs name the push by (never a token). */
  owner: string;
  slug: string;
  /** The activity's event, or `changed` for a widget. */
  what: ActivityPush['phase'] | 'changed';
  /** True when its message was built without `content`, for size. */
  contentLeftOut: boolean;
  /** True while the connections have it (waiting for a stream, or for FCM's answer). */
  requested: boolean;
  /** Gives up the push's admission slot (before it waits to retry, and when it is done). */
  leave: () => void;
}

/** What the logs say about a push. */
export const aboutJob = (job: Job): Record<string, unknown> => ({ deviceId: job.deviceId, owner: job.owner, slug: job.slug, event: job.what });
