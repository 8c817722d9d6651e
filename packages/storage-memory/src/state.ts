import type { AccountFollowers, ChannelHolder, FollowerPlace } from './channels.js';
import type { SortedIds } from './sorted-ids.js';
import {
  writeRefusal,
  type AccountRecord,
  type ApnsRegistration,
  type DeadLetter,
  type DeliveryJob,
  type ActivityRecord,
  type DeviceRecord,
  type StoredEvent,
  type WidgetRecord,
  type WriteGuard,
  type WriteRefusal,
} from '@tilecast/core/storage';

/** A widget with everything that lives and dies with it. */
export interface WidgetEntry {
  record: WidgetRecord;
  /** Device ids the widget is shared with. */
  shares: Set<string>;
  webhookMap: Record<string, unknown>;
  outcomes: Map<string, { lastSuccessAt: string | null; lastFailureAt: string | null }>;
  /**
   * When the widget's push throttle window ends (epoch ms; 0: none yet), set when a job of
   * the widget is claimed. It lives and dies with the widget, like everything else here.
   */
  windowUntil: number;
}

export interface EventLog {
  /** Highest position handed out; never lowered by a purge. */
  last: number;
  /** Events in position order. */
  events: StoredEvent[];
}

export interface Bucket {
  tokens: number;
  /** When `tokens` was last credited (whole refill periods only; the remainder is kept). */
  refilledAt: number;
  capacity: number;
  refillMs: number;
}

/**
 * Every map of one memory store. Owned by one `createMemoryStorage()` call: no module
 * state, so two stores in one process never share anything.
 */
export interface MemoryState {
  accounts: Map<string, AccountRecord>;
  /** tokenHash → account id. */
  accountByToken: Map<string, string>;
  /** accountId → slug → activity. */
  activities: Map<string, Map<string, ActivityRecord>>;
  /** accountId → slug → widget. */
  widgets: Map<string, Map<string, WidgetEntry>>;
  devices: Map<string, DeviceRecord>;
  /** tokenHash → the device's record, the same object as in `devices` (one lookup per device request). */
  deviceByToken: Map<string, DeviceRecord>;
  /** accountId → its device ids. */
  devicesByAccount: Map<string, SortedIds>;
  /** deviceId → widget keys (`widgetKey`) shared with it. */
  sharesByDevice: Map<string, Set<string>>;
  events: Map<string, EventLog>;
  /** accountId → slotId → expiresAt. */
  eventStreamSlots: Map<string, Map<string, number>>;
  /** deviceId → slotId → expiresAt. */
  deviceStreamSlots: Map<string, Map<string, number>>;
  buckets: Map<string, Bucket>;
  presses: Map<string, { eventId: string; expiresAt: number }>;
  /** Press notes: widgetKey → deviceId → until. */
  pressNotes: Map<string, Map<string, number>>;
  /** accountId → `jobKey(kind, slug)` → the resource's pending delivery job (one at most). */
  jobs: Map<string, Map<string, DeliveryJob>>;
  /** The last job generation handed out: one counter for every job, never lowered. */
  lastGeneration: number;
  /** Dead letters by a number rising in the order they were added. */
  deadLetters: Map<number, DeadLetter>;
  /** The number of the last dead letter added. */
  lastDeadLetter: number;
  deadLetterOrder: ExpiryOrder;
  /** `claimKey(eventId, entryKey)` → claim. */
  claims: Map<string, { instanceId: string; expiresAt: number }>;
  pressOrder: ExpiryOrder;
  claimOrder: ExpiryOrder;
  /** deviceId → its APNs registration. */
  apns: Map<string, ApnsRegistration>;
  /** deviceId → `pairKey(accountId, slug)` of an activity → its update token on the device. */
  activityPushTokens: Map<string, Map<string, string>>;
  /** deviceId → its FCM registration token. */
  fcmTokens: Map<string, string>;
  /** Broadcast channel id → the activity and environment holding it (one at most). */
  channelHolders: Map<string, ChannelHolder>;
  /** accountId → the devices following channels, by environment. */
  channelFollowers: Map<string, AccountFollowers>;
  /** deviceId → where it is filed in `channelFollowers`, while it follows channels. */
  followerOf: Map<string, FollowerPlace>;
}

/**
 * Whether a map of expiring entries, always appended to (an entry set again is deleted
 * first), is also in expiry order: true while every entry expires no earlier than the one
 * before it, the usual case since each kind has one lifetime. A purge then stops at the
 * first entry still alive instead of reading them all: at 1,000 presses a second the
 * press keys of ten minutes are 600,000 entries, and a purge runs in rounds of 500.
 */
export interface ExpiryOrder {
  latest: number;
  sorted: boolean;
}

export const newExpiryOrder = (): ExpiryOrder => ({ latest: Number.NEGATIVE_INFINITY, sorted: true });

/** Records that an entry expiring at `expiresAt` was appended. */
export function noteAppended(order: ExpiryOrder, expiresAt: number): void {
  if (expiresAt < order.latest) order.sorted = false;
  else order.latest = expiresAt;
}

export function createState(): MemoryState {
  return {
    accounts: new Map(),
    accountByToken: new Map(),
    activities: new Map(),
    widgets: new Map(),
    devices: new Map(),
    deviceByToken: new Map(),
    devicesByAccount: new Map(),
    sharesByDevice: new Map(),
    events: new Map(),
    eventStreamSlots: new Map(),
    deviceStreamSlots: new Map(),
    buckets: new Map(),
    presses: new Map(),
    pressNotes: new Map(),
    jobs: new Map(),
    lastGeneration: 0,
    deadLetters: new Map(),
    lastDeadLetter: 0,
    deadLetterOrder: newExpiryOrder(),
    claims: new Map(),
    pressOrder: newExpiryOrder(),
    claimOrder: newExpiryOrder(),
    apns: new Map(),
    activityPushTokens: new Map(),
    fcmTokens: new Map(),
    channelHolders: new Map(),
    channelFollowers: new Map(),
    followerOf: new Map(),
  };
}

/** Unambiguous composite key (no separator an id could contain). */
export const pairKey = (a: string, b: string): string => JSON.stringify([a, b]);

export const parsePairKey = (key: string): [string, string] => JSON.parse(key) as [string, string];

/**
 * Records cross the store boundary as copies, in both directions. Records are plain JSON
 * values (records.ts), so a direct walk copies them several times faster than
 * `structuredClone`, which serialises through V8's wire format.
 */
export function copy<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  if (Array.isArray(value)) return value.map(copy) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const item = copy((value as Record<string, unknown>)[key]);
    // An own `__proto__` key (it can come from JSON.parse) must stay a plain property.
    if (key === '__proto__') Object.defineProperty(out, key, { value: item, enumerable: true, writable: true, configurable: true });
    else out[key] = item;
  }
  return out as T;
}

/**
 * Why a guarded write must not happen (core `writeRefusal`), or null when it may. Runs in
 * the same synchronous step as the write, so what it checked still holds when it writes.
 */
export function guardRefusal(state: MemoryState, accountId: string, recordTemplate: string | undefined, guard: WriteGuard | undefined): WriteRefusal | null {
  const account = guard?.tokenHash === undefined ? undefined : state.accounts.get(accountId);
  const credentialHolds = guard?.tokenHash === undefined || (account?.tokenHash === guard.tokenHash && account.subscription === 'active');
  return writeRefusal(credentialHolds, recordTemplate ?? null, guard);
}

/** Code-unit order: the same in every store (PostgreSQL: `COLLATE "C"`). */
export const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Returns the inner map of `outer` for `key`, creating it. */
export function inner<K, V>(outer: Map<string, Map<K, V>>, key: string): Map<K, V> {
  let map = outer.get(key);
  if (!map) {
    map = new Map();
    outer.set(key, map);
  }
  return map;
}
