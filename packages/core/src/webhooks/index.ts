/** Webhooks: map schema and redaction, address guard, placeholders, signing, delivery, verification. */
export { createWebhookDispatcher } from './delivery.js';
export type { WebhookDispatcher, WebhookDispatcherOptions } from './delivery.js';
export {
  BlockedAddressError,
  checkWebhookUrl,
  createGuardedAgent,
  guardedLookup,
  systemResolver,
} from './address-guard.js';
export type { AddressPolicy, GuardedAgentOptions, ResolvedAddress, Resolver, UrlCheck, UrlRefusal } from './address-guard.js';
export { classifyAddress, isPublicAddress } from './ip-ranges.js';
export type { AddressClass } from './ip-ranges.js';
export { ATTEMPT_TIMEOUT_MS, RESPONSE_BODY_LIMIT_BYTES } from './attempt.js';
export { MAX_ATTEMPTS, isTransient, parseRetryAfter } from './retry-policy.js';
export { IDEMPOTENCY_HEADER, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './header-names.js';
export { signatureHeader, signedString } from './signing.js';
export type { SignedParts } from './signing.js';
export { PLACEHOLDER_NAMES, fillTemplate, fillText } from './template.js';
export type { PlaceholderName, PlaceholderValues } from './template.js';
export { redactUrl, REDACTED } from './redact.js';
export {
  REFUSED_HEADER_NAMES,
  WEBHOOK_BODY_MAX_BYTES,
  WEBHOOK_HEADERS_MAX_BYTES,
  WEBHOOK_MAP_MAX_ENTRIES,
  WEBHOOK_METHODS,
  WebhookEntryInput,
  WebhookMapInput,
  WebhookMapOutput,
} from './map-schema.js';
export type { WebhookEntryConfig, WebhookMethod } from './map-schema.js';
export * from './verify.js';
