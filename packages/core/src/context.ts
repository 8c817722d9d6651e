import type { DeviceAuthenticator } from './auth/device-authentication.js';
import type { PublisherCredentials } from './auth/publisher-credentials.js';
import type { Clock } from './clock.js';
import type { SseDeviceTransport } from './devices/sse-device-transport.js';
import type { EventBus } from './events/event-bus.js';
import type { FrameCache } from './events/frame-cache.js';
import type { Logger } from './logger.js';
import type { SafeObserver } from './observer.js';
import type { CredentialWatch } from './sse/credential-watch.js';
import type { StreamSlots } from './sse/stream-slots.js';
import type { DeviceFanout } from './devices/fanout.js';
import type { StoredEvent } from './storage/records.js';
import type { Storage } from './storage/storage.js';
import type { WebhookDispatcher } from './webhooks/delivery.js';
import type { SseTimings } from './sse/connection.js';
import type { SseConnectionRegistry } from './sse/connection-registry.js';
import type { ReadinessCheck } from './health/readiness.js';
import type { WidgetWrites } from './publishing/widget-writes.js';

/** What handlers and services share: everything is owned by one `createTilecast` call. */
export interface TilecastContext {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** Told what happens, for metrics and request logs; undefined when the host observes nothing. */
  observer: SafeObserver | undefined;
  devices: DeviceFanout;
  /** Widget content writes, at most one per widget in flight here; each stored write goes to `devices`. */
  widgetWrites: WidgetWrites;
  /** Webhook delivery; the press intake calls `webhooks.dispatch` after each appended event. */
  webhooks: WebhookDispatcher;
  /** Wakes live `/events` streams of an account. */
  bus: EventBus;
  /** Recent events, framed once for all streams. */
  frames: FrameCache;
  /** Renews the stream slots (`/events`, `/device/stream`) this instance holds. */
  streamSlots: StreamSlots;
  /** Ends this instance's streams whose token, subscription or device changed. */
  credentialWatch: CredentialWatch;
  /** Open `/device/stream` connections of this instance. */
  sseDeviceTransport: SseDeviceTransport;
  /** The publisher API's authentication, with this instance's credential cache. */
  credentials: PublisherCredentials;
  authenticateDevice: DeviceAuthenticator;
  /** This instance's open streams, ended with a last `retry:` when it drains. */
  sseConnections: SseConnectionRegistry;
  /** What `GET /readyz` answers. */
  readiness: ReadinessCheck;
  /** Heartbeat and lifetime of event streams. */
  sse: SseTimings;
  /** Called after an event was logged on a widget with webhooks (delivery hooks in here). */
  onEvent(accountId: string, widgetSlug: string, event: StoredEvent): void;
  /** The generated OpenAPI document (built once per instance). */
  openapi(): object;
}
