/**
 * `@tilecast/core`: what an application serving Tilecast uses (embedders), and the
 * interfaces a device transport or an observer implements. Store authors import
 * `@tilecast/core/storage`, adapter authors `@tilecast/core/adapter`, webhook receivers
 * `@tilecast/core/verify`. Every name here is public API, recorded in `api/index.api.md`:
 * add one only for a user outside the core (docs/decisions/0101-public-api.md); tests
 * import internals from `src` by relative path.
 */
export { createTilecast } from './tilecast.js';
export type { RequestHandler, Tilecast, TilecastOptions } from './tilecast.js';
export type { DeliveryOptions } from './devices/fanout.js';
export { deviceTokenAuthenticator } from './auth/device-authentication.js';
export type { DeviceAuthenticator } from './auth/device-authentication.js';
export type { SseTimings } from './sse/connection.js';
export { MAX_EVENT_STREAMS } from './events/event-stream.js';
export { MAX_DEVICE_STREAMS } from './devices/device-stream.js';
export { BODY_LIMIT_BYTES } from './http/body.js';
export { TilecastError, isTilecastError, StorageUnavailableError, isStorageUnavailable } from './errors.js';
export type { FieldError, ServiceError } from './errors.js';
export * from './clock.js';
export { consoleLogger, silentLogger, type Logger } from './logger.js';
export { combineObservers, UNMATCHED_ROUTE } from './observer.js';
export type {
  Observer,
  PressObservation,
  PushObservation,
  RequestObservation,
  StoreErrorObservation,
  DeliveryJobObservation,
  DeadLetterObservation,
  StreamObservation,
  WebhookAttemptObservation,
  WebhookDeliveryObservation,
} from './observer.js';
export { DEVICE_STREAM_TRANSPORT } from './devices/sse-device-transport.js';
export { DEFAULT_TRANSPORT_NAME } from './transport/observed-transport.js';
export * from './management/index.js';
export { createRecordingTransport } from './transport/recording-transport.js';
export type { RecordedPush, RecordingTransport } from './transport/recording-transport.js';
export { buildOpenApiDocument } from './openapi/document.js';
export { templateJsonSchemas } from './openapi/json-schemas.js';
export type { OpenApiOptions, OpenApiServer } from './openapi/document.js';
/** The store a Tilecast instance is given; implementing one: `@tilecast/core/storage`. */
export type { Storage } from './storage/storage.js';
/** What a device transport (APNs, say) implements and is given. */
export type * from './transport/device-transport.js';
export type { ActivityChannels, ApnsEnvironment } from './storage/records.js';
export { PUSH_OUTCOMES } from './transport/device-transport.js';
/** `TilecastOptions.webhooks`; delivery itself is internal, receivers verify with `@tilecast/core/verify`. */
export type { WebhookOptions } from './webhooks/delivery.js';
export type { ResolvedAddress, Resolver, WebhookConnectionOptions } from './webhooks/address-guard.js';
