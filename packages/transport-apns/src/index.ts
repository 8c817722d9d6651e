/**
 * `@tilecast/transport-apns`: the APNs device transport and the registry it reads tokens
 * from. Retry and provider-token tuning (`MAX_RETRIES`, the
 * `PROVIDER_TOKEN_*` ages, the push expiration) are internal: tests import them from `src`.
 */
export { createApnsTransport, APNS_ORIGINS, type ApnsTransport, type ApnsTransportOptions, type ApnsCounters, type ApnsBacklog } from './transport.js';
export {
  apnsRegistryFrom,
  createMemoryApnsRegistry,
  type ApnsRegistry,
  type ApnsRegistrations,
  type ApnsEnvironment,
  type MemoryApnsRegistry,
} from './registry.js';
export { signProviderToken } from './provider-token.js';
