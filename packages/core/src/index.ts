/**
 * `@tilecast/core`: what an application serving Tilecast uses. Store authors import
 * `@tilecast/core/storage`, adapter authors `@tilecast/core/adapter`.
 */
export { createTilecast } from './tilecast.js';
export { DEFAULT_PURGE_INTERVAL_MS, DEFAULT_SSE_TIMINGS } from './tilecast.js';
export { DEFAULT_READINESS_DEADLINE_MS } from './health/readiness.js';
export type { RequestHandler, Tilecast, TilecastOptions } from './tilecast.js';
export { deviceTokenAuthenticator } from './auth/device-authentication.js';
export type { DeviceAuthenticator } from './auth/device-authentication.js';
export type { SseTimings } from './sse/connection.js';
export { MAX_QUEUED_BYTES } from './sse/connection.js';
export { MAX_EVENT_STREAMS } from './events/event-stream.js';
export { MAX_DEVICE_STREAMS } from './devices/device-stream.js';
export { CONFIRMATION_WINDOW_MS, EVENT_LIFETIME_MS, EVENT_TYPE } from './presses/press-intake.js';
export { pressEventId } from './presses/event-id.js';
export { TilecastError, isTilecastError, StorageUnavailableError, isStorageUnavailable } from './errors.js';
export type { FieldError, ServiceError } from './errors.js';
export * from './clock.js';
export * from './logger.js';
export { combineObservers, UNMATCHED_ROUTE } from './observer.js';
export type {
  Observer,
  PressObservation,
  PushObservation,
  RequestObservation,
  StoreErrorObservation,
  StreamObservation,
  WebhookAttemptObservation,
  WebhookDeliveryObservation,
} from './observer.js';
export { DEVICE_STREAM_TRANSPORT } from './devices/sse-device-transport.js';
export { DEFAULT_TRANSPORT_NAME } from './transport/observed-transport.js';
export * from './management/index.js';
export { generateToken, hashToken } from './auth/tokens.js';
export { createRecordingTransport, nullTransport } from './transport/recording-transport.js';
export type { RecordedPush, RecordingTransport } from './transport/recording-transport.js';
export { WIDGET_PUSH_WINDOW_MS } from './devices/fanout.js';
export { WIDGET_CONTENT_MAX_BYTES } from './publishing/widgets.js';
export { BODY_LIMIT_BYTES } from './http/body.js';
export { buildOpenApiDocument } from './openapi/document.js';
export { templateJsonSchemas } from './openapi/json-schemas.js';
export type { OpenApiOptions, OpenApiServer } from './openapi/document.js';
/** The store a Tilecast instance is given; implementing one: `@tilecast/core/storage`. */
export type { Storage } from './storage/storage.js';
export type * from './transport/device-transport.js';
export { PUSH_OUTCOMES } from './transport/device-transport.js';
export * from './webhooks/index.js';
