/**
 * `@tilecast/transport-apns`: the APNs device transport and the registry it reads tokens
 * from. Retry and provider-token tuning (`MAX_RETRIES`, the
 * `PROVIDER_TOKEN_*` ages, the push expiration) are internal: tests import them from `src`.
 */
export {
  createApnsTransport,
  APNS_ORIGINS,
  APNS_MANAGE_ORIGINS,
  type ApnsTransport,
  type ApnsTransportOptions,
  type ApnsCounters,
  type ApnsBacklog,
  type ChannelSweepReport,
} from './transport.js';
export {
  apnsRegistryFrom,
  createMemoryApnsRegistry,
  type ApnsActivityTarget,
  type ApnsRegistry,
  type ApnsRegistrations,
  type ApnsEnvironment,
  type ApnsHeldChannel,
  type MemoryApnsRegistry,
  type MemoryActivityState,
} from './registry.js';
export { signProviderToken } from './provider-token.js';
