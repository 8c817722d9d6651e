export {
  createApnsTransport,
  retryAfterMs,
  APNS_ORIGINS,
  APNS_EXPIRATION_S,
  MAX_RETRIES,
  type ApnsTransport,
  type ApnsTransportOptions,
  type ApnsCounters,
} from './transport.js';
export {
  apnsRegistryFrom,
  createMemoryApnsRegistry,
  type ApnsRegistry,
  type ApnsRegistrations,
  type ApnsEnvironment,
  type MemoryApnsRegistry,
} from './registry.js';
export {
  signProviderToken,
  PROVIDER_TOKEN_MAX_AGE_MS,
  PROVIDER_TOKEN_MIN_RENEWAL_MS,
  PROVIDER_TOKEN_RENEW_AT_MS,
} from './provider-token.js';
