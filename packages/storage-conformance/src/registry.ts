import { accountTests } from './concerns/accounts.js';
import { activityTests } from './concerns/activities.js';
import { activityQuotaTests } from './concerns/activity-quota.js';
import { apnsRegistrationTests } from './concerns/apns-registrations.js';
import { broadcastChannelTests } from './concerns/broadcast-channels.js';
import { copyTests } from './concerns/copies.js';
import { createIfAbsentTests } from './concerns/create-if-absent.js';
import { credentialCheckTests } from './concerns/credential-checks.js';
import { deadLetterTests } from './concerns/dead-letters.js';
import { deliveryJobTests } from './concerns/delivery-jobs.js';
import { deviceTests } from './concerns/devices.js';
import { eventTests } from './concerns/events.js';
import { fcmTokenTests } from './concerns/fcm-tokens.js';
import { listingTests } from './concerns/listings.js';
import { pressDedupTests } from './concerns/press-dedup.js';
import { pressNoteTests } from './concerns/press-notes.js';
import { pressTargetTests } from './concerns/press-targets.js';
import { purgeTests } from './concerns/purge.js';
import { shareEdgeTests } from './concerns/share-edges.js';
import { deviceStreamSlotTests, eventStreamSlotTests } from './concerns/stream-slots.js';
import { tokenBucketTests } from './concerns/token-buckets.js';
import { unholdableValueTests } from './concerns/unholdable-values.js';
import { webhookTests } from './concerns/webhooks.js';
import { widgetTests } from './concerns/widgets.js';
import { writeGuardTests } from './concerns/write-guards.js';
import { writtenAudienceTests } from './concerns/written-audiences.js';
import type { GetHandles } from './harness.js';

/** The concerns of the suite, by the id used in `skip`. */
export const storageConcerns = {
  accounts: { title: 'accounts', define: accountTests },
  activities: { title: 'activities', define: activityTests },
  activityQuota: { title: 'activity quota under concurrency', define: activityQuotaTests },
  widgets: { title: 'widgets and shares', define: widgetTests },
  writeGuards: { title: 'guarded publisher writes', define: writeGuardTests },
  devices: { title: 'devices', define: deviceTests },
  credentialChecks: { title: 'credential checks of open streams', define: credentialCheckTests },
  listings: { title: 'listings for device snapshots', define: listingTests },
  events: { title: 'event log', define: eventTests },
  eventStreamSlots: { title: 'event-stream slots', define: eventStreamSlotTests },
  tokenBuckets: { title: 'press token buckets', define: tokenBucketTests },
  pressTargets: { title: 'press targets', define: pressTargetTests },
  pressDedup: { title: 'press de-duplication', define: pressDedupTests },
  pressNotes: { title: 'recent-press notes', define: pressNoteTests },
  deliveryJobs: { title: 'delivery jobs', define: deliveryJobTests },
  deadLetters: { title: 'dead letters', define: deadLetterTests },
  webhooks: { title: 'webhook maps, claims and outcomes', define: webhookTests },
  purge: { title: 'purgeExpired', define: purgeTests },
  copies: { title: 'records are copies', define: copyTests },
  unholdableValues: { title: 'values no store can hold', define: unholdableValueTests },
  seedCreatesOnly: { title: 'create-if-absent (seed)', define: createIfAbsentTests },
  apnsRegistrations: { title: 'APNs registrations', define: apnsRegistrationTests },
  deviceStreamSlots: { title: 'device-stream slots', define: deviceStreamSlotTests },
  shareEdges: { title: 'shares with devices of other accounts only', define: shareEdgeTests },
  fcmTokens: { title: 'FCM tokens', define: fcmTokenTests },
  broadcastChannels: { title: 'broadcast channels and their followers', define: broadcastChannelTests },
  writtenAudiences: { title: 'the audience a claiming write reads', define: writtenAudienceTests },
} satisfies Record<string, { title: string; define: (get: GetHandles) => void }>;

/** A concern's id, as `skip` takes it. */
export type StorageConcern = keyof typeof storageConcerns;
