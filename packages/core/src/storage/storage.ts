import type {
  AbsentRecord,
  ActivityPushTarget,
  ApnsEnvironment,
  ApnsRegistration,
  ApnsRegistrationUpdate,
  AccountRecord,
  ActivityDefinition,
  ActivityRecord,
  ActivityStateName,
  ActivityUpdateResult,
  CredentialQuery,
  CredentialValidity,
  DeviceIdentity,
  DeviceRecord,
  HeldChannel,
  PressAdmission,
  PressAdmissionResult,
  PressNote,
  WidgetContentResult,
  WriteGuard,
  StoredEvent,
  Subscription,
  WidgetDefinition,
  WidgetRecord,
} from './records.js';
import type { PressTarget } from './press-target.js';
import type {
  DeadLetter,
  DeadLetterQuery,
  DeliveryClaimTerms,
  DeliveryJob,
  DeliveryJobQuery,
  DeliveryJobRef,
  DeliveryJobStats,
  DeliveryResource,
  WriteClaimTerms,
} from './delivery-jobs.js';

/**
 * Everything Tilecast keeps. One interface for the whole service, implemented by
 * `@tilecast/storage-memory` and `@tilecast/storage-postgres`, and checked by the
 * shared conformance suite.
 *
 * Rules every implementation follows:
 * - Operations marked **ATOMIC** MUST behave as one indivisible step even when
 *   several Tilecast instances share the store (PostgreSQL: one statement, or one
 *   transaction behind a row or advisory lock; memory: no `await` between the read
 *   and the write). Never read, decide in JavaScript, then write.
 * - Time never comes from the store's own clock: operations that depend on time take
 *   `now` (epoch milliseconds) from the caller's injected clock.
 * - Records returned are copies: mutating them never changes the store.
 * - The store may keep the objects given to the publishing hot paths (`content` of
 *   `setWidgetContent` and `applyActivityUpdate`, the event of `appendEvent` and `admitPress`), and the
 *   record such a write returns holds the given object itself: the caller hands them over
 *   and never changes them afterwards (the core never does; its validated content and
 *   events are new objects per request). Everything else passed in is copied.
 * - Account ids, slugs and device ids are compared exactly (case-sensitive).
 * - A string no store can hold (a NUL, a lone surrogate: `isHoldable` is false) names
 *   nothing. Passed as a key (ids, slugs, token hashes, slot ids, action ids, press
 *   keys), a read or a change answers as for an absent record (null, false, `[]`, `{}`, 0,
 *   `not_found`, a credential that does not hold); a write that would record it (a new
 *   record or key, a token hash, a webhook map or outcome under it) rejects with a
 *   `TypeError` and changes nothing. Never a driver error. The core never passes one; this
 *   is the stores' own defence, which a store gets whole by wrapping itself in
 *   `guardUnholdable` (both Tilecast stores do).
 *
 * Call shapes: the keys that name a record (account id, slug, device id, event id...)
 * come first, positionally; times, counts and other values come in one named object
 * (`readEvents(accountId, { after, now, limit })`), so no two numbers ever stand side by
 * side at a call site.
 *
 * `Storage` is the union of one interface per concern (`AccountStore`,
 * `EventStore`, `EventStreamSlotStore`...), the same concerns the conformance suite
 * (`@tilecast/storage-conformance`) checks one by one: a store can be assembled from
 * parts, each typed by its concern.
 */
export interface Storage
  extends AccountStore,
    SeedStore,
    ActivityStore,
    WidgetStore,
    DeviceStore,
    CredentialStore,
    EventStore,
    EventStreamSlotStore,
    DeviceStreamSlotStore,
    PressStore,
    DeliveryJobStore,
    WebhookStore,
    ApnsStore,
    FcmStore,
    HousekeepingStore {}

/** Accounts (conformance concern `accounts`). */
export interface AccountStore {
  /** Creates or replaces an account (the management API's `createAccount`). */
  upsertAccount(account: AccountRecord): Promise<void>;
  /** Deletes an account with its activities, widgets, devices, shares, events and stream slots. */
  deleteAccount(accountId: string): Promise<boolean>;
  getAccount(accountId: string): Promise<AccountRecord | null>;
  findAccountByTokenHash(tokenHash: string): Promise<AccountRecord | null>;
  /** Replaces the token hash; the old token stops matching at once. False if no such account. */
  setAccountTokenHash(accountId: string, tokenHash: string): Promise<boolean>;
  /** Changes subscription and/or quota. False if no such account. */
  updateAccount(accountId: string, patch: { subscription?: Subscription; activityQuota?: number }): Promise<boolean>;
  /**
   * One page of every account, sorted by id (code units): the accounts with an id above
   * `after` (null: from the first), at most `limit`. An `after` no store can hold names
   * no position: the page is empty. For operators (the admin CLI), never a request path.
   */
  listAccounts(page: AccountPage): Promise<AccountRecord[]>;
}

/** Seeding (conformance concern `seedCreatesOnly`). */
export interface SeedStore {
  /**
   * **ATOMIC.** Creates the record unless one with its key already exists (account id;
   * account id and slug; device id, whatever its account), and answers whether it did.
   * An existing record is left exactly as it is: token hash, subscription, quota,
   * definition, state, content, shares. Of N concurrent calls for one key, exactly one
   * creates (PostgreSQL: `INSERT ... ON CONFLICT DO NOTHING`). A seed applied at start
   * (docs/contract/deployment.md#env-seed) uses it, so a restart never reverts what the app changed.
   * A token hash already held by another account or device is refused, as on upsert.
   */
  createIfAbsent(record: AbsentRecord): Promise<boolean>;
}

/** Activities (conformance concerns `activities`, `activityQuota`, `writeGuards`). */
export interface ActivityStore {
  /**
   * Creates an activity, or changes the definition (template, dismissal delay) of an
   * existing one, keeping its state and content when the template is unchanged and
   * resetting them (not live, no content) when it changes.
   */
  putActivity(definition: ActivityDefinition): Promise<void>;
  deleteActivity(accountId: string, slug: string): Promise<boolean>;
  getActivity(accountId: string, slug: string): Promise<ActivityRecord | null>;
  /**
   * **ATOMIC.** Applies a validated update with the lifecycle of docs/contract/publisher-api.md#activity-start, docs/contract/publisher-api.md#activity-end,
   * docs/contract/publisher-api.md#activity-idle-when-not-live and docs/contract/publisher-api.md#activity-quota-atomic:
   * - `ONGOING` on a not-live activity starts it (`transition: 'start'`), but only if the
   *   account's live activities stay within its `activityQuota`, else
   *   `{ok: false, reason: 'quota_exceeded'}` and nothing changes;
   * - `ONGOING` on a live one: `'update'`; `IDLE` on a live one: `'end'` (no longer live);
   *   `IDLE` on a not-live one: `'none'` (stored, pushed nowhere).
   * The quota check and the state change are one step: N concurrent starts against a
   * quota Q yield exactly min(N, Q) successes, across instances.
   * The `guard`'s conditions are checked in that same step; refusals come in the order
   * `credential_changed`, `not_found`, `template_mismatch`, `quota_exceeded`.
   * With `claim`, the job the update leaves is also claimed in that step, as described at
   * `DeliveryJobStore`.
   */
  applyActivityUpdate(
    accountId: string,
    slug: string,
    update: { state: ActivityStateName; content: unknown; now: number; guard?: WriteGuard; claim?: WriteClaimTerms },
  ): Promise<ActivityUpdateResult>;
  /** The account's activities, sorted by slug. */
  listActivities(accountId: string): Promise<ActivityRecord[]>;
}

/**
 * Widgets and their shares (conformance concerns `widgets`, `writeGuards`, `listings`,
 * `pressTargets`).
 */
export interface WidgetStore {
  /**
   * Creates a widget, or changes its definition (template, stale_after, privacy), keeping
   * content when the template is unchanged and clearing it when the template changes.
   */
  putWidget(definition: WidgetDefinition): Promise<void>;
  /** Deletes a widget with its shares and webhook map. */
  deleteWidget(accountId: string, slug: string): Promise<boolean>;
  getWidget(accountId: string, slug: string): Promise<WidgetRecord | null>;
  /**
   * **ATOMIC.** Stores new content as a whole. `staleAfter` `undefined` keeps the current
   * setting, `null` clears it. Returns the updated record, or why nothing was written,
   * in this order: a guarded credential that no longer holds (`credential_changed`), no
   * such widget (`not_found`), a guarded template that differs (`template_mismatch`).
   * With `claim`, the job the write leaves is also claimed in that step when it is due at
   * once (no throttle window runs), as described at `DeliveryJobStore`.
   */
  setWidgetContent(
    accountId: string,
    slug: string,
    update: { content: unknown; staleAfter: number | null | undefined; now: number; guard?: WriteGuard; claim?: WriteClaimTerms },
  ): Promise<WidgetContentResult>;
  /** The account's widgets, sorted by slug. */
  listWidgets(accountId: string): Promise<WidgetRecord[]>;
  /** Widgets of other accounts shared with the device, sorted by account id, then slug. */
  listWidgetsSharedWith(deviceId: string): Promise<WidgetRecord[]>;
  /**
   * **ATOMIC.** Shares a widget with a device of another account. Idempotent. False, and
   * nothing written, if either is missing or the device belongs to the widget's account
   * (it shows the widget already: a share would list and push it twice).
   */
  shareWidget(accountId: string, slug: string, deviceId: string): Promise<boolean>;
  unshareWidget(accountId: string, slug: string, deviceId: string): Promise<boolean>;
  /** Device ids the widget is shared with, sorted. */
  listWidgetShares(accountId: string, slug: string): Promise<string[]>;
  /**
   * What a press of action `actionId` on widget `slug` of `accountId` by device `deviceId`
   * needs to know, in one read that copies no content: the action's kind in the current
   * content (core `actionKindIn`), whether the widget is shared with the device, and
   * whether its webhook map has any entry. Null if no such widget. Every press asks this.
   */
  getPressTarget(accountId: string, slug: string, actionId: string, deviceId: string): Promise<PressTarget | null>;
}

/** Devices (conformance concerns `devices`, `listings`). */
export interface DeviceStore {
  /**
   * Registers or replaces a device. A device moved to another account loses every share
   * naming it (they were made for its old account); a changed token hash or account also
   * frees its device-stream slots (the streams of the old credential end by themselves).
   */
  upsertDevice(device: DeviceRecord): Promise<void>;
  /** Deletes a device, every share naming it and its device-stream slots. */
  deleteDevice(deviceId: string): Promise<boolean>;
  getDevice(deviceId: string): Promise<DeviceRecord | null>;
  findDeviceByTokenHash(tokenHash: string): Promise<DeviceRecord | null>;
  /** Devices of an account, sorted by id. */
  listAccountDevices(accountId: string): Promise<DeviceRecord[]>;
  /** The ids of an account's devices, sorted by id: what a fan-out needs, without copying ten thousand records. */
  listAccountDeviceIds(accountId: string): Promise<string[]>;
}

/** Credentials of open streams (conformance concern `credentialChecks`). */
export interface CredentialStore {
  /**
   * Whether the credentials behind this instance's open streams still hold, all in one
   * call (it runs every few seconds, whatever the number of streams; PostgreSQL: at most one
   * statement per kind). An account entry holds while the account exists with that token
   * hash and an active subscription; a device entry while the device exists with that
   * token hash. Answers one boolean per entry, in the order given.
   */
  checkCredentials(query: CredentialQuery): Promise<CredentialValidity>;
}

/** The account-scoped event log (conformance concern `events`). */
export interface EventStore {
  /**
   * **ATOMIC.** Appends an event to the account's log and returns its position. Positions
   * rise by one in commit order per account: no reader may ever see position n+1 and
   * later find n. Events of other accounts never share or reveal positions.
   */
  appendEvent(accountId: string, event: Omit<StoredEvent, 'position'>): Promise<StoredEvent>;
  /**
   * Events of the account with position > `after` (0: all) that have not expired at
   * `now` (`expiresAt > now`), in position order, at most `limit`.
   */
  readEvents(accountId: string, read: EventRead): Promise<StoredEvent[]>;
  /** The account's highest position so far (0 when none). */
  lastEventPosition(accountId: string): Promise<number>;
  /**
   * Optional. How many events the store holds over every account, expired ones that
   * `purgeExpired` has not removed yet included: the event-log size a metrics scrape reports.
   * One cheap call (the log is short-lived and purged), never per request. Both Tilecast
   * stores have it; a store without it simply has no event-log size metric.
   */
  countEvents?(): Promise<number>;
  /**
   * Optional cross-instance wake-up: calls `listener(accountId)` when another instance
   * appended an event. Returns an unsubscribe function. Absent on single-process stores.
   */
  subscribeEvents?(listener: (accountId: string) => void): () => void;
}

/** Event-stream slots (conformance concern `eventStreamSlots`). */
export interface EventStreamSlotStore {
  /**
   * **ATOMIC.** Takes one of at most `max` stream slots of the account for `slotId`,
   * valid until `now + ttlMs`. Expired slots (of crashed instances) are ignored and
   * removed. False when `max` unexpired slots are held.
   */
  acquireEventStreamSlot(accountId: string, slotId: string, terms: SlotAcquisition): Promise<boolean>;
  /** Extends a held slot to `now + ttlMs`. False if it expired or was released. */
  renewEventStreamSlot(accountId: string, slotId: string, terms: SlotRenewal): Promise<boolean>;
  releaseEventStreamSlot(accountId: string, slotId: string): Promise<void>;
}

/**
 * Device-stream slots (conformance concern `deviceStreamSlots`): the leases of
 * `GET /device/stream`, counted per device, with the rules of `EventStreamSlotStore`. A
 * device's slots are apart from any account's event-stream slots, even under an equal id.
 * They go with the device (`deleteDevice`, `deleteAccount`) and with its credential
 * (`upsertDevice` changing its token hash or account).
 */
export interface DeviceStreamSlotStore {
  /** **ATOMIC.** As `acquireEventStreamSlot`, for the device's streams. */
  acquireDeviceStreamSlot(deviceId: string, slotId: string, terms: SlotAcquisition): Promise<boolean>;
  /** Extends a held slot to `now + ttlMs`. False if it expired or was released. */
  renewDeviceStreamSlot(deviceId: string, slotId: string, terms: SlotRenewal): Promise<boolean>;
  releaseDeviceStreamSlot(deviceId: string, slotId: string): Promise<void>;
}

/** Press intake (conformance concerns `pressDedup`, `tokenBuckets`, `pressNotes`). */
export interface PressStore {
  /**
   * **ATOMIC**, all or nothing. Admits a press:
   * 1. de-duplication: if `key` is held and unexpired (`expiresAt > now`), answers
   *    `{outcome: 'duplicate', eventId}` with the holder's event id and writes nothing;
   * 2. rate limits (token buckets): refills each bucket of `rules` (`capacity` at most, one
   *    token per `refillMs` since its last refill), then takes one token from every bucket
   *    if each has one; if any has none, answers `{outcome: 'limited'}` and writes nothing
   *    (no key, no token, no note, no event);
   * 3. otherwise records `key` with `event.id` until `keyExpiresAt`, writes the press note
   *    (as `notePress`), appends `event` to `accountId`'s log (as `appendEvent`) and answers
   *    `{outcome: 'accepted', event}` with its position.
   * An admitted key therefore always has its event logged: a retry after any failure
   * either finds nothing (and admits again) or finds the key and its event.
   */
  admitPress(press: PressAdmission): Promise<PressAdmissionResult>;
  /**
   * Notes that device `deviceId` pressed a tile of widget `widgetKey`, remembered until
   * `until`; a later note for the same pair replaces it (the latest press counts).
   */
  notePress(note: PressNote): Promise<void>;
  /** Devices with a press note on `widgetKey` still valid at `now` (`until > now`), sorted. */
  listRecentPressers(widgetKey: string, now: number): Promise<string[]>;
}

/**
 * Delivery jobs and dead letters (docs/contract/durable-delivery.md; conformance concerns
 * `deliveryJobs`, `deadLetters`, and `writtenAudiences` for the audience a claiming write
 * returns). The rules every store applies are the pure functions of
 * `delivery-jobs.ts` (`supersedingJob`, `claimed`, `isClaimable`); a store keeps the rows
 * and makes each operation below one atomic step.
 *
 * Jobs are written by the content writes themselves, in the same atomic step
 * (docs/contract/durable-delivery.md#durable-outbox): `applyActivityUpdate` with a
 * transition other than `none`, and every `setWidgetContent`, leave the resource's job as
 * `supersedingJob(unfinished job or null, ...)` with a fresh generation, and return it. A
 * widget's job is due at the end of its throttle window (`windowUntil`, set when a job of
 * the widget is claimed), so the throttle holds across instances
 * (docs/contract/durable-delivery.md#durable-throttle-across-instances). Deleting the
 * activity, widget or account deletes its job.
 *
 * A content write given `claim` (`WriteClaimTerms`) also claims the job it leaves, in the
 * same atomic step, exactly as `claimDeliveryJob(job, job.generation, { ...claim, now })`
 * would right after it: when the new job is claimable at the write's `now` (an activity's
 * always; a widget's when no throttle window runs), the job returned is
 * `claimed(job, { ...claim, now })` (leased to `claim.instanceId` until `now +
 * claim.leaseMs`), and a widget's window then runs until `now + WIDGET_PUSH_WINDOW_MS`. A
 * job not due yet is left unleased, due at its window's end, as without `claim`. The
 * instance that accepts an update claims its job this way, one round trip fewer than a
 * separate `claimDeliveryJob` (docs/decisions/0118-claim-in-the-write.md). A write that
 * claimed its job may also return the job's audience as it read it (`audience`, see
 * `WrittenAudience`), which the run then need not read (docs/decisions/0119-audience-in-the-write.md).
 */
export interface DeliveryJobStore {
  /**
   * **ATOMIC.** Claims the job of `resource` if it still has `generation`, is claimable
   * (`isClaimable`) and the result is `claimed(job, terms)`; for a widget the throttle
   * window then runs until `terms.now + WIDGET_PUSH_WINDOW_MS`. Null otherwise. The
   * instance that accepted an update claims its job this way when its write did not (a
   * widget's trailing push, a store that ignores `claim`).
   */
  claimDeliveryJob(resource: DeliveryResource, generation: number, terms: DeliveryClaimTerms): Promise<DeliveryJob | null>;
  /**
   * **ATOMIC.** Claims up to `limit` claimable jobs, oldest `dueAt` first, each as
   * `claimDeliveryJob` would; a job is never held by two claimants while its lease is valid
   * (docs/contract/durable-delivery.md#durable-job-claiming).
   */
  claimDueDeliveryJobs(terms: DeliveryClaimTerms & { limit: number }): Promise<DeliveryJob[]>;
  /**
   * **ATOMIC.** Records that every device up to `cursor` is done and renews the lease until
   * `now + leaseMs`, if `ref` still holds the job (same generation and instance, lease not
   * lapsed); false otherwise, and the caller stops (superseded, or taken over).
   */
  recordDeliveryProgress(ref: DeliveryJobRef, progress: { cursor: string; now: number; leaseMs: number }): Promise<boolean>;
  /** **ATOMIC.** The job is done: removed if `ref` still holds it; false (nothing changed) otherwise. */
  completeDeliveryJob(ref: DeliveryJobRef): Promise<boolean>;
  /** **ATOMIC.** Gives the lease up (graceful shutdown): the job stays, with its progress, claimable at once by anyone. */
  releaseDeliveryJob(ref: DeliveryJobRef): Promise<void>;
  /** Pending jobs (every job not done), oldest `createdAt` first. */
  listDeliveryJobs(query: DeliveryJobQuery): Promise<DeliveryJob[]>;
  /** How many jobs are pending and how old the oldest is. */
  deliveryJobStats(): Promise<DeliveryJobStats>;
  /** Keeps dead letters (docs/contract/durable-delivery.md#durable-dead-letters); `purgeExpired` drops them after `DEAD_LETTER_TTL_MS`. */
  addDeadLetters(letters: readonly DeadLetter[]): Promise<void>;
  /** Dead letters, newest `at` first. */
  listDeadLetters(query: DeadLetterQuery): Promise<DeadLetter[]>;
}

/** Webhook maps, delivery claims and outcomes (conformance concern `webhooks`). */
export interface WebhookStore {
  /** Replaces a widget's webhook map (opaque JSON to the store). False if no such widget. */
  setWebhookMap(accountId: string, slug: string, map: Record<string, unknown>): Promise<boolean>;
  /** The widget's webhook map ({} when none), or null if no such widget. */
  getWebhookMap(accountId: string, slug: string): Promise<Record<string, unknown> | null>;
  /**
   * **ATOMIC.** Claims delivery of event `eventId` to webhook entry `entryKey` for
   * `instanceId`: true for exactly one caller across instances (while the claim holds).
   */
  claimWebhookDelivery(eventId: string, entryKey: string, claim: DeliveryClaim): Promise<boolean>;
  /** Records the outcome of a whole delivery (ISO 8601 time) on the entry. */
  recordWebhookOutcome(accountId: string, slug: string, entryKey: string, outcome: DeliveryOutcome): Promise<void>;
  /** Delivery timestamps per entry key. */
  getWebhookOutcomes(accountId: string, slug: string): Promise<Record<string, { lastSuccessAt: string | null; lastFailureAt: string | null }>>;
}

/**
 * The devices' APNs tokens (docs/contract/device-api.md#device-push-register, docs/contract/device-api.md#device-activity-token,
 * docs/contract/device-api.md#device-registrations-follow-token; conformance concern `apnsRegistrations`):
 * the push-to-start and WidgetKit tokens a device registered, and the update token each
 * Live Activity of its account got on it. Tokens are opaque strings to the store (the core
 * passes lower-case hex). They live and die with their device: `deleteDevice` (and
 * `deleteAccount`) removes them, and so does `upsertDevice` when it changes the device's
 * token hash or account. An activity's update tokens go with the activity.
 */
export interface ApnsStore {
  /**
   * **ATOMIC.** `PUT /device/push`: sets the device's environment; a token `undefined` keeps
   * the one registered, `null` removes it. False (nothing written) if no such device, or,
   * with `ifDevice`, when the device no longer has that account and token hash.
   *
   * The check and the write are one step against `upsertDevice` and `deleteDevice`: a
   * registration made with credentials that were rotated or removed meanwhile is either
   * refused or removed by that change, never left behind (PostgreSQL: the write locks the
   * device row; `upsertDevice` locks it before it removes the registrations).
   */
  setApnsRegistration(deviceId: string, registration: ApnsRegistrationUpdate, condition?: { ifDevice?: DeviceIdentity }): Promise<boolean>;
  /** The device's registration, or null when it has none (or does not exist). */
  getApnsRegistration(deviceId: string): Promise<ApnsRegistration | null>;
  /**
   * Optional batch read: `getApnsRegistration` of every device in `deviceIds`, in one call
   * (PostgreSQL: one statement). The map holds the devices that have a registration,
   * each as `getApnsRegistration` answers it; the others are absent. An id given twice is
   * answered once; an empty list answers an empty map. A push transport reads a fan-out's
   * tokens with it (`apnsRegistryFrom`); a store without it is read one device at a time.
   */
  getApnsRegistrations?(deviceIds: readonly string[]): Promise<Map<string, ApnsRegistration>>;
  /**
   * Optional batch read for the pushes of activity `accountId/slug`: each device of
   * `deviceIds` that has a registration, with it and the activity's update token on the
   * device (`getActivityPushToken`, or null), in one call (PostgreSQL: one statement).
   * Devices without a registration are absent (no push reaches them). As
   * `getApnsRegistrations` otherwise.
   */
  getActivityPushTargets?(accountId: string, slug: string, deviceIds: readonly string[]): Promise<Map<string, ActivityPushTarget>>;
  /**
   * **ATOMIC.** `DELETE /device/push`: removes every APNs token of the device (registration
   * and update tokens). With `ifDevice`, only while the device still has that account and
   * token hash, checked in the same step as the removal (as for `setApnsRegistration`):
   * false, and nothing removed, otherwise. True when the removal was made, also when there
   * was nothing to remove (without `ifDevice`, also for a device that does not exist).
   */
  removeApnsRegistration(deviceId: string, condition?: { ifDevice?: DeviceIdentity }): Promise<boolean>;
  /**
   * **ATOMIC.** Stores `token` as the update token of activity `accountId/slug` on the
   * device, replacing any. False (nothing written) when there is no such device or activity,
   * or the activity is not of the device's account (it is not shown there), or, with
   * `ifDevice`, when the device no longer has that account and token hash (one step
   * against `upsertDevice` and `deleteDevice`, as for `setApnsRegistration`).
   */
  setActivityPushToken(deviceId: string, accountId: string, slug: string, token: string, condition?: { ifDevice?: DeviceIdentity }): Promise<boolean>;
  /** The activity's update token on the device, or null. */
  getActivityPushToken(deviceId: string, accountId: string, slug: string): Promise<string | null>;
  /**
   * **ATOMIC.** Forgets the activity's update token on the device; with `ifToken`, only while
   * it is still that token (a token registered meanwhile, by a new Live Activity, stays).
   */
  forgetActivityPushToken(deviceId: string, accountId: string, slug: string, condition?: { ifToken?: string }): Promise<void>;
  /**
   * **ATOMIC.** APNs refused `token` for good: removes it wherever the device registered it
   * (push-to-start, widgets, any activity's update token). A token the device does not hold
   * is a no-op; the environment stays.
   */
  removeApnsToken(deviceId: string, token: string): Promise<void>;
  /**
   * **ATOMIC.** Sets the broadcast channel of activity `accountId/slug` in `environment`;
   * `null` forgets it (the channel was deleted). With `ifChannel`, only while the stored
   * one is still that id (`null`: none stored). False, and nothing written, when there is no
   * such activity, the condition fails, or `channelId` is held already by another activity
   * or environment: a channel id belongs to one activity and environment
   * (docs/contract/broadcast-channels.md#broadcast-channel-on-start; conformance concern
   * `broadcastChannels`). Deleting the activity forgets its channels.
   */
  setActivityChannel(
    accountId: string,
    slug: string,
    environment: ApnsEnvironment,
    channelId: string | null,
    condition?: { ifChannel?: string | null },
  ): Promise<boolean>;
  /** Every channel a stored activity holds, in no particular order (the orphan sweep). */
  listActivityChannels(): Promise<HeldChannel[]>;
  /**
   * The devices of account `accountId` whose APNs registration follows channels
   * (`channels: true`) in one of `environments`, ascending id (code units), as
   * `listAccountDeviceIds`. A broadcast reaches them, so a job leaves them out.
   */
  listChannelFollowers(accountId: string, environments: readonly ApnsEnvironment[]): Promise<string[]>;
}

/**
 * The devices' FCM registration tokens (docs/contract/device-api.md#device-fcm-register,
 * docs/contract/device-api.md#device-fcm-remove, docs/contract/device-api.md#device-fcm-follows-token;
 * conformance concern `fcmTokens`): at most one per device, the token Firebase Cloud
 * Messaging handed to the app on that phone. Tokens are opaque strings to the store, kept
 * exactly as given (FCM tokens are case-sensitive). They live and die with their device like
 * the APNs tokens: `deleteDevice` (and `deleteAccount`) removes them, and so does
 * `upsertDevice` when it changes the device's token hash or account.
 */
export interface FcmStore {
  /**
   * **ATOMIC.** `PUT /device/fcm`: sets (replaces) the device's FCM token. False (nothing
   * written) if no such device, or, with `ifDevice`, when the device no longer has that
   * account and token hash: one step against `upsertDevice` and `deleteDevice`, exactly as
   * for `setApnsRegistration` (PostgreSQL: the write locks the device row).
   */
  setFcmToken(deviceId: string, token: string, condition?: { ifDevice?: DeviceIdentity }): Promise<boolean>;
  /** The device's FCM token, or null when it has none (or does not exist). */
  getFcmToken(deviceId: string): Promise<string | null>;
  /**
   * Optional batch read: `getFcmToken` of every device in `deviceIds`, in one call
   * (PostgreSQL: one statement). The map holds the devices that have a token; the others
   * are absent. An empty list answers an empty map. A store without it is read one device
   * at a time (`fcmRegistryFrom`).
   */
  getFcmTokens?(deviceIds: readonly string[]): Promise<Map<string, string>>;
  /**
   * **ATOMIC.** Removes the device's FCM token, on `DELETE /device/fcm` (with `ifDevice`) or
   * on an FCM answer that unregistered the token (with `ifToken`). Each condition is checked
   * in the same step as the removal:
   * - `ifDevice`: only while the device still has that account and token hash, as for
   *   `removeApnsRegistration`; false, and nothing removed, otherwise. True when it holds,
   *   also when there was no token to remove.
   * - `ifToken`: only while the device still holds that very token, so a newer one
   *   registered meanwhile stays; false, and nothing removed, otherwise (another token, or
   *   none).
   * Without conditions: true, also when there was nothing to remove (or no such device).
   */
  removeFcmToken(deviceId: string, condition?: { ifDevice?: DeviceIdentity; ifToken?: string }): Promise<boolean>;
}

/** Housekeeping and lifecycle (conformance concern `purge`). */
export interface HousekeepingStore {
  /**
   * Removes expired events, press keys, press notes, event- and device-stream slots, delivery claims
   * and dead letters older than `DEAD_LETTER_TTL_MS`, at most
   * `batch` rows of each kind; returns how many were removed in total. Also frees state
   * that is indistinguishable from absent state (full token buckets, ended throttle
   * windows), uncounted, so the store stays bounded.
   */
  purgeExpired(round: PurgeRound): Promise<number>;
  /** Releases resources the store opened itself (never a pool the host passed in). */
  close(): Promise<void>;
}

// ── named arguments ─────────────────────────────────────────────────────────

/** Which accounts `listAccounts` returns. */
export interface AccountPage {
  /** Only accounts with an id above this one (code units); null: from the first. */
  after: string | null;
  /** At most this many accounts. */
  limit: number;
}

/** Which events `readEvents` returns. */
export interface EventRead {
  /** Only events with a position above this one (0: from the start). */
  after: number;
  /** Only events that have not expired at `now` (`expiresAt > now`). */
  now: number;
  /** At most this many events. */
  limit: number;
}

/** The terms of `acquireEventStreamSlot` and `acquireDeviceStreamSlot`. */
export interface SlotAcquisition {
  /** At most this many unexpired slots per account (per device). */
  max: number;
  now: number;
  /** The slot holds until `now + ttlMs`. */
  ttlMs: number;
}

/** The terms of `renewEventStreamSlot` and `renewDeviceStreamSlot`. */
export interface SlotRenewal {
  now: number;
  /** The slot then holds until `now + ttlMs`. */
  ttlMs: number;
}

/** Who claims a webhook delivery, when, and until when the claim holds. */
export interface DeliveryClaim {
  instanceId: string;
  now: number;
  /** The claim is kept (and refuses others) until then; `purgeExpired` removes it after. */
  expiresAt: number;
}

/** The outcome of a whole webhook delivery. */
export interface DeliveryOutcome {
  outcome: 'success' | 'failure';
  /** ISO 8601 time of the outcome. */
  at: string;
}

/** One round of `purgeExpired`. */
export interface PurgeRound {
  now: number;
  /** At most this many rows of each kind are removed. */
  batch: number;
}
