import type { ActivityPush, Clock, WidgetPush } from '@tilecast/core';
import type { Job, Ticket } from './job.js';

/** `android.priority` of a message. */
export type FcmPriority = 'high' | 'normal';

/**
 * A message is sent without `content` when its data, `{"tilecast": "..."}` as UTF-8, would
 * exceed this (docs/contract/android-fcm.md#fcm-size-fallback, docs/contract/android-fcm.md#fcm-size-measure).
 */
export const MESSAGE_MAX_BYTES = 4000;
/** `android.ttl`: FCM may deliver the message up to an hour after it was sent, and then drops it. */
export const FCM_TTL_S = 3600;

/**
 * What `data.tilecast` decodes to (docs/contract/android-fcm.md#fcm-message,
 * docs/contract/android-fcm.md#fcm-message-fields): `content` is absent for a widget and for
 * an activity whose message would be too large.
 */
export interface TilecastData {
  kind: 'activity' | 'widget';
  owner: string;
  slug: string;
  event: 'start' | 'update' | 'end' | 'changed';
  /** The activity's state; null for a widget. */
  state: ActivityPush['state'] | null;
  content?: unknown;
  /** The update's time, whole seconds since the epoch. */
  timestamp: number;
  /** For an activity's `end`: when the Live Update should go, whole seconds since the epoch; else null. */
  dismissal_date: number | null;
}

/** One push's message, the same for every device of a fan-out but for the token. */
export interface Message {
  /** The update's time (epoch ms), for superseding. */
  at: number;
  /** The body after `{"message":{"token":<token>,`. */
  tail: string;
  /** True when `content` was left out for size. */
  contentLeftOut: boolean;
}

export interface MessageBuilderOptions {
  projectId: string;
  /** `android.priority` of activity updates (start and end are always `high`). */
  updatePriority: FcmPriority;
  /** `android.priority` of widget messages. */
  widgetPriority: FcmPriority;
  /** The time of a push without a valid `updated_at`. */
  clock: Clock;
}

/** Builds the messages of activity and widget pushes (docs/contract/android-fcm.md#fcm-message). */
export class MessageBuilder {
  readonly path: string;
  private readonly messages = new WeakMap<ActivityPush | WidgetPush, Message>();

  constructor(private readonly options: MessageBuilderOptions) {
    this.path = `/v1/projects/${options.projectId}/messages:send`;
  }

  /**
   * An activity push's message: the same for every device of a fan-out (one push object,
   * one `updated_at`), so it is made once per push object. A push without a valid
   * `updated_at` takes the clock's time, each device its own.
   */
  activity(push: ActivityPush): Message {
    return this.cached(push, (at) => {
      const timestamp = Math.floor(at / 1000);
      const data: TilecastData = {
        kind: 'activity',
        owner: push.owner,
        slug: push.slug,
        event: push.phase,
        state: push.state,
        content: push.content,
        timestamp,
        dismissal_date: push.phase === 'end' ? timestamp + Math.ceil(push.dismissal_delay_s) : null,
      };
      const priority = push.phase === 'update' ? this.options.updatePriority : 'high';
      return this.message(at, data, priority);
    });
  }

  /** A widget push's message: `changed`, never with content (docs/contract/android-fcm.md#fcm-widget-changed). */
  widget(push: WidgetPush): Message {
    return this.cached(push, (at) => {
      const data: TilecastData = {
        kind: 'widget',
        owner: push.owner,
        slug: push.slug,
        event: 'changed',
        state: null,
        timestamp: Math.floor(at / 1000),
        dismissal_date: null,
      };
      return this.message(at, data, this.options.widgetPriority);
    });
  }

  /**
   * The job of the ticket's message to `token`. Every job comes from this one literal, with
   * `expiresAtMs` at 0, for the transport to stamp: it has its
   * final shape from the start.
   */
  job(ticket: Ticket, token: string, leave: () => void): Job {
    const { push, message } = ticket;
    return {
      key: ticket.key,
      path: this.path,
      token,
      tail: message.tail,
      deviceId: ticket.deviceId,
      seq: ticket.seq,
      expiresAtMs: 0,
      owner: push.owner,
      slug: push.slug,
      what: 'phase' in push ? push.phase : 'changed',
      contentLeftOut: message.contentLeftOut,
      requested: false,
      leave,
    };
  }

  private cached(push: ActivityPush | WidgetPush, make: (at: number) => Message): Message {
    let message = this.messages.get(push);
    if (message !== undefined) return message;
    const parsed = Date.parse(push.updated_at);
    message = make(Number.isFinite(parsed) ? parsed : this.options.clock.now());
    if (Number.isFinite(parsed)) this.messages.set(push, message);
    return message;
  }

  /** The message of `data`, without its content when the data would exceed MESSAGE_MAX_BYTES. */
  private message(at: number, data: TilecastData, priority: FcmPriority): Message {
    let carried = { tilecast: JSON.stringify(data) };
    let contentLeftOut = false;
    if ('content' in data && Buffer.byteLength(JSON.stringify(carried)) > MESSAGE_MAX_BYTES) {
      const { content: _leftOut, ...rest } = data;
      carried = { tilecast: JSON.stringify(rest) };
      contentLeftOut = true;
    }
    const android = { collapse_key: `${data.owner}/${data.slug}`, priority, ttl: `${FCM_TTL_S}s` };
    // `{"data":...,"android":...}` without its opening brace: the rest of the message after its token.
    return { at, tail: `${JSON.stringify({ data: carried, android }).slice(1)}}`, contentLeftOut };
  }
}
