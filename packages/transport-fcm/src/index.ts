/**
 * `@tilecast/transport-fcm`: the FCM device transport (Android Live Updates and Glance
 * widgets, docs/contract/android-fcm.md) and the registry it reads registration tokens
 * from. Retry and access-token tuning (`MAX_RETRIES`, `QUOTA_WAIT_MS`, the renewal times)
 * are internal: tests import them from `src`.
 */
export { createFcmTransport, FCM_ORIGIN, TOKEN_ORIGIN, type FcmTransport, type FcmTransportOptions, type FcmCounters, type FcmBacklog } from './transport.js';
export type { FcmPriority, TilecastData } from './message.js';
export { checkFcmServiceAccount, type FcmServiceAccount } from './service-account.js';
export { fcmRegistryFrom, createMemoryFcmRegistry, type FcmRegistry, type FcmTokenStore, type MemoryFcmRegistry } from './registry.js';
