import { systemClock, type Clock } from './clock.js';
import type { TilecastContext } from './context.js';
import { isTilecastError } from './errors.js';
import { publisherRoutes } from './handlers/routes.js';
import { errorToResult, internalErrorResult } from './http/error-response.js';
import { createRouter } from './http/router.js';
import type { CoreRequest, CoreResult } from './http/types.js';
import { consoleLogger, type Logger } from './logger.js';
import { createManagementApi, type ManagementApi } from './management/management-api.js';
import { loadSeed, type SeedResult } from './management/seed.js';
import { buildOpenApiDocument } from './openapi/document.js';
import { createDeviceFanout } from './services/device-fanout.js';
import type { Storage } from './storage/storage.js';
import type { DeviceTransport } from './transport/device-transport.js';
import { nullTransport } from './transport/recording-transport.js';
import { createWebhookDispatcher, type WebhookDispatcherOptions } from './webhooks/delivery.js';

export interface TilecastOptions {
  /** Where everything is kept: `@tilecast/storage-memory` or `@tilecast/storage-postgres`. */
  storage: Storage;
  /** How pushes reach devices. Default: none (updates are stored only). */
  transport?: DeviceTransport;
  /** Time source; inject a fake clock in tests. */
  clock?: Clock;
  logger?: Logger;
  /** `info.title` of `/openapi.json`. Default `Tilecast`. */
  title?: string;
  /**
   * Webhook delivery settings. `allowPrivateNetworks` (off by default, logged as a warning
   * when on) lets test deployments deliver to loopback/private receivers; `ca` adds trusted
   * CAs; `resolve` replaces DNS; `unsafeTestOnlyDial` is for tests only (see its docs).
   */
  webhooks?: Omit<WebhookDispatcherOptions, 'storage' | 'clock' | 'logger'>;
}

export interface Tilecast {
  /** Serves one HTTP request, translated by an adapter. Never rejects. */
  handle(request: CoreRequest): Promise<CoreResult>;
  /** What the mobile app does: accounts, tokens, activities, widgets, devices, shares. */
  readonly management: ManagementApi;
  /** Loads a seed file (an upsert) through the management API. */
  loadSeed(seed: unknown): Promise<SeedResult>;
  /** The generated OpenAPI 3.1 document served at `/openapi.json`. */
  openapi(): object;
  /** Resolves once background work (device pushes, webhook deliveries) started so far has settled. */
  idle(): Promise<void>;
  /** Stops timers. Does not close the storage (the host owns it). */
  close(): Promise<void>;
}

/**
 * The composition root: owns every piece of state of one Tilecast instance, so two
 * instances in one process never share anything by accident.
 */
export function createTilecast(options: TilecastOptions): Tilecast {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? consoleLogger;
  const { storage } = options;
  const devices = createDeviceFanout({ storage, transport: options.transport ?? nullTransport, clock, logger });
  const webhooks = createWebhookDispatcher({ ...options.webhooks, storage, clock, logger });
  let openapiDocument: object | undefined;
  const openapi = (): object => (openapiDocument ??= buildOpenApiDocument({ title: options.title ?? 'Tilecast' }));

  const context: TilecastContext = { storage, clock, logger, devices, webhooks, openapi };
  const route = createRouter(publisherRoutes);
  const management = createManagementApi(storage);

  const handle = async (request: CoreRequest): Promise<CoreResult> => {
    try {
      const match = route(request);
      if ('error' in match) return errorToResult(match.error);
      return await match.handler(context, request, match.params);
    } catch (error) {
      if (isTilecastError(error)) return errorToResult(error.error);
      logger.error('request failed', { method: request.method, path: request.path, error: String(error) });
      return internalErrorResult();
    }
  };

  return {
    handle,
    management,
    loadSeed: (seed) => loadSeed(management, seed),
    openapi,
    idle: async () => {
      await Promise.all([devices.idle(), webhooks.idle()]);
    },
    async close() {
      devices.close();
      webhooks.close();
      await Promise.all([devices.idle(), webhooks.idle()]);
    },
  };
}
