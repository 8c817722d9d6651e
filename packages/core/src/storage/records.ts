/**
 * Plain records kept by a `Storage`. They are JSON-serialisable so that every
 * store (memory, PostgreSQL) can hold them as they are.
 */
import type { DeliveryJob } from './delivery-jobs.js';

export type Subscription = 'active' | 'none';
export type ActivityStateName = 'IDLE' | 'ONGOING';
export type WidgetPrivacy = 'visible' | 'hidden_when_locked';

export interface AccountRecord {
  id: string;
  /** SHA-256 hex of the API token; the token itself is never stored. */
  tokenHash: string;
  subscription: Subscription;
  /** Maximum number of concurrently live (ONGOING) activities. */
  activityQuota: number;
}

export interface ActivityRecord {
  accountId: string;
  slug: string;
  template: string;
  dismissalDelayS: number;
  /** Last stored state; `IDLE` before the first update. */
  state: ActivityStateName;
  /** True between a start (first ONGOING) and the next IDLE. Counts against the quota. */
  live: boolean;
  /** Last stored (validated, normalised) content, or null before the first update. */
  content: unknown;
  /** ISO 8601 time of the last update, or null. */
  updatedAt: string | null;
  /** How its updates reach iPhones (docs/contract/broadcast-channels.md#broadcast-activity-delivery). */
  delivery: ActivityDelivery;
  /** Broadcast with storage policy 0 and `apns-expiration: 0` (docs/contract/broadcast-channels.md#broadcast-storage-policy). */
  frequentUpdates: boolean;
  /** Its APNs broadcast channel per environment, null where it has none (docs/contract/broadcast-channels.md#broadcast-channel-on-start). */
  channels: ActivityChannels;
}

/**
 * How an activity's updates reach iPhones: `tokens`, one APNs request per device, or
 * `broadcast`, one request per update and environment to a channel its devices follow
 * (docs/contract/broadcast-channels.md#broadcast-activity-delivery).
 */
export type ActivityDelivery = 'tokens' | 'broadcast';

/** An activity's APNs broadcast channel ids, one per environment; null where it has none. */
export interface ActivityChannels {
  production: string | null;
  sandbox: string | null;
}

/** A channel a stored activity holds (the transport's orphan sweep keeps these: docs/contract/broadcast-channels.md#broadcast-orphan-cleanup). */
export interface HeldChannel {
  accountId: string;
  slug: string;
  environment: ApnsEnvironment;
  channelId: string;
  /** The activity's state and last update, so that a channel left after an end can be told apart. */
  live: boolean;
  updatedAt: string | null;
  dismissalDelayS: number;
}

export interface WidgetRecord {
  accountId: string;
  slug: string;
  template: string;
  staleAfter: number | null;
  privacy: WidgetPrivacy;
  content: unknown;
  updatedAt: string | null;
}

export interface DeviceRecord {
  id: string;
  accountId: string;
  /** SHA-256 hex of the device token. */
  tokenHash: string;
}

/**
 * A device as a request authenticated it: the account and token hash it had then. A write
 * conditioned on it happens only while the device still has both (its token was not
 * rotated, it was not moved or removed and registered again).
 */
export type DeviceIdentity = Pick<DeviceRecord, 'accountId' | 'tokenHash'>;

/** Which APNs environment a device's tokens belong to (the app's build decides it). */
export type ApnsEnvironment = 'production' | 'sandbox';

/** A device's APNs tokens (`PUT /device/push`): lower-case hex, or null when not registered. */
export interface ApnsRegistration {
  environment: ApnsEnvironment;
  /** ActivityKit push-to-start token. */
  pushToStart: string | null;
  /** WidgetKit push token. */
  widgets: string | null;
  /** The app follows broadcast channels (iOS 18 and later: docs/contract/broadcast-channels.md#broadcast-device-flag). */
  channels: boolean;
}

/** What an activity's update push to one device needs (`getActivityPushTargets`). */
export interface ActivityPushTarget {
  /** The device's registration, as `getApnsRegistration` answers it. */
  registration: ApnsRegistration;
  /** The activity's update token on the device, or null. */
  token: string | null;
}

/** A change of a device's registration: a token `undefined` is kept as it is, `null` removes it. */
export interface ApnsRegistrationUpdate {
  environment: ApnsEnvironment;
  pushToStart?: string | null;
  widgets?: string | null;
  /** `undefined` keeps the stored flag (false for a new registration). */
  channels?: boolean;
}

/** The definition part of an activity, as set in the app. */
export interface ActivityDefinition {
  accountId: string;
  slug: string;
  template: string;
  dismissalDelayS: number;
  /** Default `tokens`. Changing it keeps the channels stored; a broadcast activity gets new ones at its next start. */
  delivery?: ActivityDelivery;
  /** Default false. */
  frequentUpdates?: boolean;
}

/** The definition part of a widget, as set in the app. */
export interface WidgetDefinition {
  accountId: string;
  slug: string;
  template: string;
  staleAfter: number | null;
  privacy: WidgetPrivacy;
}

/** What an activity update did to the lifecycle (drives the device push). */
export type ActivityTransition = 'start' | 'update' | 'end' | 'none';

/**
 * Conditions a publisher's write is made under, checked in the same atomic step as the
 * write itself (so a cached credential or a template read earlier can never let a write
 * through that the current state would refuse).
 */
export interface WriteGuard {
  /** Write only if the record's template is this one (else `template_mismatch`). */
  template?: string;
  /**
   * Write only if the account still holds this token hash and an active subscription
   * (else `credential_changed`): a rotated token or an ended subscription stops working
   * at once, even when the caller authenticated from a cache.
   */
  tokenHash?: string;
}

/**
 * The credentials behind open streams, re-checked together (`Storage.checkCredentials`):
 * an event stream's account and the token hash it was opened with, a device stream's
 * device and its token hash.
 */
export interface CredentialQuery {
  accounts: { accountId: string; tokenHash: string }[];
  devices: { deviceId: string; tokenHash: string }[];
}

/** Whether each credential of a `CredentialQuery` still holds: one boolean per entry, in its order. */
export interface CredentialValidity {
  accounts: boolean[];
  devices: boolean[];
}

/** Why a guarded write did not happen (when several hold, the first in this list). */
export type WriteRefusal = 'credential_changed' | 'not_found' | 'template_mismatch';

export type ActivityUpdateResult =
  /** `job`: the delivery job the update left (null for transition `none`), in the same step (docs/contract/durable-delivery.md#durable-outbox). */
  | {
      ok: true;
      activity: ActivityRecord;
      transition: ActivityTransition;
      job: DeliveryJob | null;
      /** The devices of the job the write claimed, as that write read them: see `WrittenAudience`. */
      audience?: WrittenAudience;
    }
  | { ok: false; reason: WriteRefusal | 'quota_exceeded' };

/** `job`: the delivery job the update left, in the same step (docs/contract/durable-delivery.md#durable-outbox). */
export type WidgetContentResult =
  | {
      ok: true;
      widget: WidgetRecord;
      job: DeliveryJob;
      /** The devices of the job the write claimed, as that write read them: see `WrittenAudience`. */
      audience?: WrittenAudience;
    }
  | { ok: false; reason: WriteRefusal };

/**
 * The audience of the job a content write claimed for the writer (`claim` given, and the
 * returned job's `leasedBy` is `claim.instanceId`), read by that same write
 * (docs/decisions/0119-audience-in-the-write.md): exactly what core's `audienceOf` would
 * answer for the job, i.e. the devices the job walks, ascending by UTF-16 code units
 * (docs/contract/durable-delivery.md#durable-job-resume; PostgreSQL: `COLLATE "C"`): the
 * account's devices (`listAccountDeviceIds`) for an activity; for a widget, those and the
 * devices it is shared with (`listWidgetShares`), each once. `[]` when there is none.
 *
 * A store MAY return it; when it does not (or the write claimed nothing: no claim terms,
 * a widget inside its throttle window), the result has no `audience` and the job's run
 * reads it as for any other claim. The instance that runs the job then needs no read of
 * its own before the first push: one statement fewer per job on PostgreSQL.
 */
export type WrittenAudience = readonly string[];

/** An event as kept in the account-scoped log (the envelope is opaque to storage). */
export interface StoredEvent {
  /** Position in the account's log; rises in commit order, starting at 1. */
  position: number;
  /** The event envelope's `id`. */
  id: string;
  /** `<kind>/<slug>` of the envelope's subject, for filtering. */
  subject: string;
  type: string;
  /** Epoch milliseconds after which the event is never delivered nor replayed. */
  expiresAt: number;
  envelope: Record<string, unknown>;
}

/** One token bucket of a rate-limit check. */
export interface TokenBucketRule {
  /** Bucket identity, e.g. `press:dev:<device>:<owner>/<slug>`. */
  key: string;
  /** Burst size: the bucket starts full with this many tokens. */
  capacity: number;
  /** Milliseconds to refill one token. */
  refillMs: number;
}

/** Device `deviceId` pressed a tile of widget `widgetKey`; remembered while `until > now`. */
export interface PressNote {
  widgetKey: string;
  deviceId: string;
  /** Epoch milliseconds until which the note counts. */
  until: number;
}

/** A press to admit (`Storage.admitPress`): everything its acceptance writes, at once. */
export interface PressAdmission {
  /** De-duplication key (owner, slug and the phone's `request_id`). */
  key: string;
  /** The key de-duplicates while `keyExpiresAt > now`. */
  keyExpiresAt: number;
  /** One token is taken from each of these buckets, or none from any. */
  rules: TokenBucketRule[];
  now: number;
  /** The press note written with the press (as `notePress` would). */
  note: PressNote;
  /** The account whose log gets the event. */
  accountId: string;
  /** The press's event; its `id` is what a later duplicate is answered with. */
  event: Omit<StoredEvent, 'position'>;
}

export type PressAdmissionResult =
  /** The key was already admitted and has not expired: nothing was written. */
  | { outcome: 'duplicate'; eventId: string }
  /** A bucket had no token: nothing was written. */
  | { outcome: 'limited' }
  /** Key recorded, tokens taken, note written, event logged (with its position). */
  | { outcome: 'accepted'; event: StoredEvent };

/**
 * What `Storage.createIfAbsent` may create: an account, an activity, a widget or a
 * device, each as its upsert takes it.
 */
export type AbsentRecord =
  | { kind: 'account'; account: AccountRecord }
  | { kind: 'activity'; definition: ActivityDefinition }
  | { kind: 'widget'; definition: WidgetDefinition }
  | { kind: 'device'; device: DeviceRecord };
