import type { ActivityPush, Clock } from '@tilecast/core';
import type { ActivityTicket, Job, Ticket, WidgetTicket } from './job.js';
import type { ApnsEnvironment } from './registry.js';
import type { ApnsRequest } from './request.js';

export interface PushBuilderOptions {
  /** Topics are `<bundleId>.push-type.liveactivity|widgets`. */
  bundleId: string;
  /** The Live Activity's `attributes-type` for start pushes. */
  attributesType: string;
  /** `apns-priority` of update pushes (start and end are always 10). */
  updatePriority: 5 | 10;
  /** The time of an activity push without a valid `updated_at`. */
  clock: Clock;
}

/** An activity push's time (epoch ms) and its payload as sent. */
export interface ActivityPayload {
  at: number;
  body: string;
}

/** How a kind of push is sent: its push type, topic and `apns-priority`. */
type PushKind = Pick<ApnsRequest, 'pushType' | 'topic' | 'priority'>;

/** The one payload of every widgets push: the extension reloads and reads its content itself. */
export const WIDGETS_BODY = JSON.stringify({ aps: { 'content-changed': true } });

/** Builds the jobs of Live Activity and widgets pushes (docs/contract/apns.md#apns-pushes). */
export class PushBuilder {
  /** Push type, topic and priority per phase and for widgets: made once, shared by every job. */
  private readonly kinds: Readonly<Record<Job['what'], PushKind>>;
  private readonly attributesType: string;
  private readonly clock: Clock;
  private readonly payloads = new WeakMap<ActivityPush, ActivityPayload>();
  /** Start payloads naming a channel, per push and channel id: one per environment at most. */
  private readonly channelStarts = new WeakMap<ActivityPush, Map<string, string>>();

  constructor(options: PushBuilderOptions) {
    const liveactivity = `${options.bundleId}.push-type.liveactivity`;
    this.kinds = {
      start: { pushType: 'liveactivity', topic: liveactivity, priority: 10 },
      update: { pushType: 'liveactivity', topic: liveactivity, priority: options.updatePriority },
      end: { pushType: 'liveactivity', topic: liveactivity, priority: 10 },
      widgets: { pushType: 'widgets', topic: `${options.bundleId}.push-type.widgets`, priority: null },
    };
    this.attributesType = options.attributesType;
    this.clock = options.clock;
  }

  /**
   * An activity push's time and payload: the same for every device of a fan-out (one
   * push object, one `updated_at`), so they are made once per push object. A push without
   * a valid `updated_at` takes the clock's time, each device its own.
   */
  activityPayload(push: ActivityPush): ActivityPayload {
    let payload = this.payloads.get(push);
    if (payload !== undefined) return payload;
    const parsed = Date.parse(push.updated_at);
    const at = Number.isFinite(parsed) ? parsed : this.clock.now();
    payload = { at, body: JSON.stringify({ aps: this.activityAps(push, Math.floor(at / 1000)) }) };
    if (Number.isFinite(parsed)) this.payloads.set(push, payload);
    return payload;
  }

  /**
   * The job of an activity push to `token`, its body the ticket's payload; a start to a
   * device that follows `channelId` names it (docs/contract/broadcast-channels.md#broadcast-start).
   */
  activityJob(ticket: ActivityTicket, token: string, environment: ApnsEnvironment, leave: () => void, channelId: string | null = null): Job {
    const body = channelId === null || ticket.push.phase !== 'start' ? ticket.payload.body : this.channelStartBody(ticket, channelId);
    return this.job(ticket.push.phase, ticket, token, environment, body, leave);
  }

  /**
   * A start payload with `"input-push-channel": <id>` in place of `"input-push-token": 1`,
   * at the ticket's time: made once per push and channel, as the ticket's payload is (so a
   * push has two start payloads per environment at most), or per device when that one is.
   */
  private channelStartBody(ticket: ActivityTicket, channelId: string): string {
    const { push, payload } = ticket;
    const shared = this.payloads.get(push) === payload;
    let bodies = shared ? this.channelStarts.get(push) : undefined;
    const found = bodies?.get(channelId);
    if (found !== undefined) return found;
    const body = JSON.stringify({ aps: this.activityAps(push, Math.floor(payload.at / 1000), channelId) });
    if (shared) {
      if (bodies === undefined) this.channelStarts.set(push, (bodies = new Map()));
      bodies.set(channelId, body);
    }
    return body;
  }

  /** The job of a widgets push to the device's widgets `token`. */
  widgetJob(ticket: WidgetTicket, token: string, environment: ApnsEnvironment, leave: () => void): Job {
    return this.job('widgets', ticket, token, environment, WIDGETS_BODY, leave);
  }

  /**
   * Every job comes from this one literal, with `expiration` and `expiresAtMs` at 0 for
   * the transport to stamp: it has its final shape from the start (no property is added
   * per push, which would grow the object).
   */
  private job(what: Job['what'], ticket: Ticket, token: string, environment: ApnsEnvironment, body: string, leave: () => void): Job {
    const kind = this.kinds[what];
    return {
      deviceId: ticket.deviceId,
      token,
      key: ticket.key,
      seq: ticket.seq,
      environment,
      pushType: kind.pushType,
      topic: kind.topic,
      priority: kind.priority,
      body,
      owner: ticket.push.owner,
      slug: ticket.push.slug,
      what,
      requested: false,
      leave,
      expiration: 0,
      expiresAtMs: 0,
    };
  }

  /** The `aps` of an activity push; a start names `channelId` when it has one (docs/contract/broadcast-channels.md#broadcast-start). */
  private activityAps(push: ActivityPush, timestamp: number, channelId: string | null = null): Record<string, unknown> {
    const contentState = { state: push.state, content: push.content };
    if (push.phase === 'start')
      return {
        timestamp,
        event: 'start',
        'content-state': contentState,
        'attributes-type': this.attributesType,
        attributes: { owner: push.owner, slug: push.slug, template: push.template },
        alert: { title: push.slug, body: '' },
        ...(channelId === null ? { 'input-push-token': 1 } : { 'input-push-channel': channelId }),
      };
    if (push.phase === 'update') return { timestamp, event: 'update', 'content-state': contentState };
    return { timestamp, event: 'end', 'content-state': contentState, 'dismissal-date': dismissalDate(timestamp, push) };
  }
}

/** An end's `dismissal-date`, in epoch seconds: its `timestamp` plus the activity's dismissal delay. */
export function dismissalDate(timestamp: number, push: Pick<ActivityPush, 'dismissal_delay_s'>): number {
  return timestamp + Math.ceil(push.dismissal_delay_s);
}
