import type { Clock } from './clock.js';
import type { Logger } from './logger.js';
import type { DeviceFanout } from './services/device-fanout.js';
import type { Storage } from './storage/storage.js';
import type { WebhookDispatcher } from './webhooks/delivery.js';

/** What handlers and services share: everything is owned by one `createTilecast` call. */
export interface TilecastContext {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  devices: DeviceFanout;
  /** Webhook delivery; the press intake calls `webhooks.dispatch` after each appended event. */
  webhooks: WebhookDispatcher;
  /** The generated OpenAPI document (built once per instance). */
  openapi(): object;
}
