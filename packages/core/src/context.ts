import type { DeviceAuthenticator } from './auth/device-authentication.js';
import type { PublisherCredentials } from './auth/publisher-credentials.js';
import type { Clock } from './clock.js';
import type { DeviceStreamHub } from './devices/device-stream-hub.js';
import type { EventBus } from './events/event-bus.js';
import type { FrameCache } from './events/frame-cache.js';
import type { StreamLeaseKeeper } from './events/stream-leases.js';
import type { Logger } from './logger.js';
import type { SafeObserver } from './observer.js';
import type { CredentialWatch } from './streams/credential-watch.js';
import type { DeviceFanout } from './services/device-fanout.js';
import type { StoredEvent } from './storage/records.js';
import type { Storage } from './storage/storage.js';
import type { WebhookDispatcher } from './webhooks/delivery.js';
import type { SseTimings } from './streams/sse-session.js';
import type { StreamRegistry } from './streams/stream-registry.js';
import type { ReadinessCheck } from './health/readiness.js';

/** What handlers and services share: everything is owned by one `createTilecast` call. */
export interface TilecastContext {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  /** Told what happens, for metrics and request logs; undefined when the host observes nothing. */
  observer: SafeObserver | undefined;
  devices: DeviceFanout;
  /** Webhook delivery; the press intake calls `webhooks.dispatch` after each appended event. */
  webhooks: WebhookDispatcher;
  /** Wakes live `/events` streams of an account. */
  bus: EventBus;
  /** Recent events, framed once for all streams. */
  frames: FrameCache;
  /** Renews the `/events` stream slots this instance holds. */
  streamLeases: StreamLeaseKeeper;
  /** Ends this instance's streams whose token, subscription or device changed. */
  credentialWatch: CredentialWatch;
  /** Open `/device/stream` connections of this instance. */
  deviceStreams: DeviceStreamHub;
  /** The publisher API's authentication, with this instance's credential cache. */
  credentials: PublisherCredentials;
  authenticateDevice: DeviceAuthenticator;
  /** This instance's open streams, ended with a last `retry:` when it drains. */
  streams: StreamRegistry;
  /** What `GET /readyz` answers. */
  readiness: ReadinessCheck;
  /** Heartbeat and lifetime of event streams. */
  sse: SseTimings;
  /** Called after an event was logged on a widget with webhooks (delivery hooks in here). */
  onEvent(accountId: string, widgetSlug: string, event: StoredEvent): void;
  /** The generated OpenAPI document (built once per instance). */
  openapi(): object;
}
