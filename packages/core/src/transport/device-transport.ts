import type { ActivityChannels, ActivityStateName, ApnsEnvironment, WidgetPrivacy } from '../storage/records.js';

/** What a device is told about an activity (docs/contract/device-api.md#device-stream-activity-event). */
export interface ActivityPush {
  owner: string;
  slug: string;
  phase: 'start' | 'update' | 'end';
  state: ActivityStateName;
  content: unknown;
  dismissal_delay_s: number;
  /**
   * The activity's template and the update's ISO 8601 time. Not part of the device
   * stream's `event: activity` (which carries only the fields above): an APNs transport
   * needs them for the Live Activity's `attributes` and the push's `timestamp`.
   */
  template: string;
  updated_at: string;
  /**
   * A broadcast activity's channels (docs/contract/broadcast-channels.md#broadcast-start):
   * a start push to a device that follows channels names its environment's channel.
   * Absent for token delivery.
   */
  channels?: ActivityChannels;
}

/** What a device is told about a widget (docs/contract/device-api.md#device-stream-widget-event). */
export interface WidgetPush {
  owner: string;
  slug: string;
  content: unknown;
  stale_after: number | null;
  updated_at: string;
  privacy: WidgetPrivacy;
}

/**
 * What came of one push, as the transport's promise resolves with it (metrics count these,
 * not promises):
 * - `delivered`: the push service (or the device) took it;
 * - `skipped`: there was nothing to send it to (the device registered no token for it);
 * - `superseded`: a newer push for the same activity or widget took its place;
 * - `token_removed`: the push service refused the device's token for good, and it was removed;
 * - `refused`: the push service refused the push for good (a refusal other than the token's);
 * - `dropped`: given up (retries used up, expired, no connection, the transport closed).
 */
export type PushOutcome = 'delivered' | 'skipped' | 'superseded' | 'token_removed' | 'refused' | 'dropped';

/**
 * An outcome with the reason behind it, for the outcomes that become dead letters
 * (`refused`, `dropped`: docs/contract/durable-delivery.md#durable-dead-letters), e.g.
 * `{ outcome: 'refused', reason: 'BadTopic' }`.
 */
export interface PushReport {
  outcome: PushOutcome;
  /** A few words, no secrets or tokens: what the push service answered, or why it was given up. */
  reason: string;
}

/**
 * What a push's promise resolves with: its outcome, alone or as a report with its reason,
 * or nothing, which counts as `delivered`.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: transports written before outcomes return Promise<void>, and must still fit
export type PushResult = PushOutcome | PushReport | void;

/** Every `PushOutcome`. */
export const PUSH_OUTCOMES: readonly PushOutcome[] = ['delivered', 'skipped', 'superseded', 'token_removed', 'refused', 'dropped'];

/**
 * Carries pushes to devices: the reference deployment's SSE device stream, APNs in a
 * real deployment, a recorder in tests. A rejected promise fails only that device's
 * push; it never fails the publisher's request nor blocks other devices. The promise
 * resolves with the push's `PushOutcome`; one that resolves with nothing (a transport
 * that does not tell) counts as `delivered`.
 */
export interface DeviceTransport {
  /** What push metrics call it (`apns`): a short fixed name, never an address. Default `host`. */
  readonly name?: string;
  pushActivity(deviceId: string, push: ActivityPush): Promise<PushResult>;
  pushWidget(deviceId: string, push: WidgetPush): Promise<PushResult>;
  /**
   * Optional: one push for every device that follows a broadcast activity's channels
   * (docs/contract/broadcast-channels.md). Called once per delivery job of an activity
   * created with `delivery: 'broadcast'`, before its devices are walked. For a `start`
   * it makes the channels ready (nothing is broadcast: a start is per device); for an
   * `update` or `end` it sends one broadcast per environment. Never rejects: what it could
   * not do, it leaves to per-device pushes (`covered` without that environment).
   */
  broadcastActivity?(broadcast: ActivityBroadcast): Promise<BroadcastResult>;
}

/** What `DeviceTransport.broadcastActivity` is given. */
export interface ActivityBroadcast {
  /** The job's push (its `channels` are the ones stored with the activity). */
  push: ActivityPush;
  /** Storage policy 0 and `apns-expiration: 0` (docs/contract/broadcast-channels.md#broadcast-storage-policy). */
  frequentUpdates: boolean;
  /**
   * The environments to broadcast in: for a `start`, those in which a device of the
   * account follows channels (a channel is made for each); for an `update` or `end`, those
   * with a stored channel.
   */
  environments: readonly ApnsEnvironment[];
}

/** What came of `DeviceTransport.broadcastActivity`. */
export interface BroadcastResult {
  /**
   * The environments whose channel followers this push reached by broadcast: the job
   * leaves those devices out of its per-device pushes. Empty for a `start`.
   */
  covered: readonly ApnsEnvironment[];
  /** The activity's channels afterwards (made at a start, made again after `ChannelNotRegistered`). */
  channels: ActivityChannels;
}
