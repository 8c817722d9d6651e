import { guardUnholdable, type Storage } from '@tilecast/core/storage';
import { accountMethods } from './accounts.js';
import { activityMethods } from './activities.js';
import { apnsMethods } from './apns.js';
import { createIfAbsentMethod } from './create-if-absent.js';
import { credentialMethods } from './credentials.js';
import { deliveryJobMethods } from './delivery-jobs.js';
import { deviceMethods } from './devices.js';
import { eventMethods } from './events.js';
import { fcmMethods } from './fcm.js';
import { deviceStreamSlotMethods, eventStreamSlotMethods } from './stream-slots.js';
import { pressMethods } from './presses.js';
import { purgeExpired } from './purge.js';
import { createState, type MemoryState } from './state.js';
import { webhookMethods } from './webhooks.js';
import { widgetMethods } from './widgets.js';

/** How many entries of each kind a memory store holds (for tests and diagnostics). */
export interface MemoryStorageStats {
  accounts: number;
  activities: number;
  widgets: number;
  devices: number;
  shares: number;
  events: number;
  eventStreamSlots: number;
  deviceStreamSlots: number;
  buckets: number;
  pressKeys: number;
  deliveryClaims: number;
  /** Pending delivery jobs (held in this process only: not durable across a crash). */
  deliveryJobs: number;
  deadLetters: number;
  /** Devices with an APNs registration. */
  apnsRegistrations: number;
  /** Live Activity update tokens, over every device. */
  activityPushTokens: number;
  /** Devices with an FCM token. */
  fcmTokens: number;
  /** Broadcast channel ids held by activities, over every environment. */
  activityChannels: number;
  /** Devices whose APNs registration follows broadcast channels. */
  channelFollowers: number;
}

/** The in-memory `Storage`, plus a look at its size. */
export interface MemoryStorage extends Storage {
  stats(): MemoryStorageStats;
}

function stats(state: MemoryState): MemoryStorageStats {
  const sum = (sizes: Iterable<number>): number => {
    let total = 0;
    for (const size of sizes) total += size;
    return total;
  };
  const widgets = [...state.widgets.values()].flatMap((bySlug) => [...bySlug.values()]);
  return {
    accounts: state.accounts.size,
    activities: sum([...state.activities.values()].map((bySlug) => bySlug.size)),
    widgets: widgets.length,
    devices: state.devices.size,
    shares: sum(widgets.map((entry) => entry.shares.size)),
    events: sum([...state.events.values()].map((log) => log.events.length)),
    eventStreamSlots: sum([...state.eventStreamSlots.values()].map((slots) => slots.size)),
    deviceStreamSlots: sum([...state.deviceStreamSlots.values()].map((slots) => slots.size)),
    buckets: state.buckets.size,
    pressKeys: state.presses.size,
    deliveryClaims: state.claims.size,
    deliveryJobs: sum([...state.jobs.values()].map((jobs) => jobs.size)),
    deadLetters: state.deadLetters.size,
    apnsRegistrations: state.apns.size,
    activityPushTokens: sum([...state.activityPushTokens.values()].map((tokens) => tokens.size)),
    fcmTokens: state.fcmTokens.size,
    activityChannels: state.channelHolders.size,
    channelFollowers: state.followerOf.size,
  };
}

/**
 * Creates an in-memory Tilecast store: everything lives in this process and is lost when
 * it exits. Each call returns an independent store. Atomic operations do all their work
 * synchronously (no `await` between a read and its write), which makes them atomic within
 * the process; records cross the boundary as deep copies. Strings no store can hold are
 * kept out by core's `guardUnholdable`, as in every store.
 */
export function createMemoryStorage(): MemoryStorage {
  const state = createState();
  const accounts = accountMethods(state);
  const activities = activityMethods(state);
  const widgets = widgetMethods(state);
  const devices = deviceMethods(state);
  return guardUnholdable({
    ...accounts,
    ...activities,
    ...widgets,
    ...devices,
    ...createIfAbsentMethod(state, { ...accounts, ...activities, ...widgets, ...devices }),
    ...credentialMethods(state),
    ...eventMethods(state),
    ...eventStreamSlotMethods(state),
    ...deviceStreamSlotMethods(state),
    ...pressMethods(state),
    ...deliveryJobMethods(state),
    ...webhookMethods(state),
    ...apnsMethods(state),
    ...fcmMethods(state),
    async purgeExpired({ now, batch }) {
      return purgeExpired(state, now, batch);
    },
    stats: () => stats(state),
    async close() {
      // Nothing to release: the maps go with the last reference to the store.
    },
  });
}
