import { PublisherCredentials } from './auth/publisher-credentials.js';
import { deviceTokenAuthenticator, type DeviceAuthenticator } from './auth/device-authentication.js';
import { systemClock, type Clock } from './clock.js';
import type { TilecastContext } from './context.js';
import { createSseDeviceTransport } from './devices/sse-device-transport.js';
import { isStorageUnavailable, isTilecastError } from './errors.js';
import { createEventBus } from './events/event-bus.js';
import { createStreamSlots } from './sse/stream-slots.js';
import { createFrameCache } from './events/frame-cache.js';
import { deviceRoutes, healthRoutes, publisherRoutes } from './handlers/routes.js';
import { DEFAULT_DELIVERY_LATE_AFTER_MS } from './health/delivery-detail.js';
import { createReadinessCheck, DEFAULT_READINESS_DEADLINE_MS } from './health/readiness.js';
import { startHousekeeping } from './housekeeping.js';
import { errorToResult, internalErrorResult } from './http/error-response.js';
import { headOnly } from './http/response-head.js';
import { createRouter, type Route } from './http/router.js';
import type { CoreRequest, CoreResult } from './http/types.js';
import { consoleLogger, describeError, type Logger } from './logger.js';
import { safeObserver, storeErrorKind, UNMATCHED_ROUTE, type Observer, type SafeObserver } from './observer.js';
import { createManagementApi, type ManagementApi } from './management/management-api.js';
import { loadSeed, type SeedResult } from './management/seed.js';
import { buildOpenApiDocument, type OpenApiOptions } from './openapi/document.js';
import { createDeviceFanout, type DeliveryOptions } from './devices/fanout.js';
import { WidgetWrites } from './publishing/widget-writes.js';
import type { Storage } from './storage/storage.js';
import { createCredentialWatch, DEFAULT_CREDENTIAL_CHECK_MS } from './sse/credential-watch.js';
import type { SseTimings } from './sse/connection.js';
import { createSseConnectionRegistry } from './sse/connection-registry.js';
import type { DeviceTransport } from './transport/device-transport.js';
import { observedTransport } from './transport/observed-transport.js';
import { createWebhookDispatcher, type WebhookOptions } from './webhooks/delivery.js';

export interface TilecastOptions {
  /** Where everything is kept: `@tilecast/storage-memory` or `@tilecast/storage-postgres`. */
  storage: Storage;
  /**
   * How pushes reach devices: a transport (APNs, say) or several (APNs and FCM), each push
   * handed to every one of them (a transport skips a device it has no token of). Each is
   * observed under its own `name` and keeps its own dead letters. Pushes always also go to
   * devices connected to this instance's `GET /device/stream`. Default: the device stream only.
   */
  transport?: DeviceTransport | readonly DeviceTransport[];
  /**
   * Finds the device behind a device-API request. Default: `Authorization: Device <token>`
   * checked against the devices' token hashes. Embedders plug their own device auth in here.
   */
  authenticateDevice?: DeviceAuthenticator;
  /** Event-stream heartbeat and lifetime. Defaults: 20 s and 15 minutes, as specified. */
  sse?: Partial<SseTimings>;
  /**
   * How often the credentials behind open streams are re-checked in the store. Default 2 s:
   * a rotated token, an ended subscription or a removed device ends its streams within 5 s.
   */
  credentialCheckMs?: number;
  /**
   * How delivery jobs are worked on (docs/contract/durable-delivery.md): lease, how often
   * jobs nobody works on are looked for, how many at once, and from what age a pending job
   * is named in `/readyz`'s detail. Defaults: 30 s, 2 s, 8, 60 s.
   */
  delivery?: DeliveryOptions;
  /** How often expired rows are purged from the store. Default 30 s; 0 turns it off (the host purges). */
  purgeIntervalMs?: number;
  /** Time source; inject a fake clock in tests. */
  clock?: Clock;
  logger?: Logger;
  /**
   * Told about requests, pushes, webhook attempts, streams, presses and store outages, for
   * metrics and request logs (`@tilecast/metrics` makes one). Default: none, and then none
   * of it is measured.
   */
  observer?: Observer;
  /** `info.title` of `/openapi.json`. Default `Tilecast`. */
  title?: string;
  /**
   * The rest of `/openapi.json`: `servers` (default `[{url: '/'}]`; name your mount path, e.g.
   * `[{url: '/tilecast'}]`) and `devicePath`, where you mount `tilecast.device` (default
   * `/device`; `null` leaves the device API out).
   */
  openapi?: Omit<OpenApiOptions, 'title'>;
  /**
   * Webhook delivery settings. `allowPrivateNetworks` (off by default, logged as a warning
   * when on) lets test deployments deliver to loopback/private receivers; `ca` adds trusted
   * CAs; `resolve` replaces DNS; `unsafeTestOnlyDial` is for tests only (see its docs).
   */
  webhooks?: WebhookOptions;
  /** How long `GET /readyz` waits for the store before answering `503`. Default 2 s. */
  readinessDeadlineMs?: number;
}

/** Anything that serves core requests: what adapters mount. */
export interface RequestHandler {
  /** Serves one HTTP request, translated by an adapter. Never rejects. */
  handle(request: CoreRequest): Promise<CoreResult>;
  /**
   * Whether `path` (relative to the mount, without the query) is one of this handler's
   * routes, for any method: a known path with another method is still this handler's (it
   * answers `405`). Adapters hand every other request back to their host (Express's
   * `next()`, a `notFound` listener), so a mount never swallows the host's routes. A
   * handler without it claims every path (see `ownsPath` in `@tilecast/core/adapter`).
   */
  owns?(path: string): boolean;
}

export interface Tilecast extends RequestHandler {
  /** The phones' API (`POST /presses`, `GET /stream`), to mount on its own path, e.g. `/device`. */
  readonly device: Required<RequestHandler>;
  owns(path: string): boolean;
  /**
   * Liveness and readiness probes, `GET /healthz` and `GET /readyz`, without authentication,
   * to mount where load balancers look (the reference server: at the root, next to the API).
   * `/healthz` is `200 {"status":"ok"}` while the process serves. `/readyz` is the same when
   * the store answers a cheap read within `readinessDeadlineMs` and the instance is not
   * draining, else `503 {"status":"unavailable","reason":"storage"|"draining"}`. Its `200`
   * carries `"detail"` lines when a pending delivery job has waited longer than
   * `delivery.lateAfterMs`; that alone never makes it `503`.
   */
  readonly health: Required<RequestHandler>;
  /**
   * Begins a shutdown: `/readyz` answers `503` (`draining`) from now on, every open event
   * and device stream ends with a last `retry:` line (its client reconnects, to another
   * instance once this one stopped accepting), and streams requested later get the same
   * answer at once. Requests that are not streams are still served. Then stop accepting,
   * give `idle()` a bounded time, and `close()`. Answers how many streams it ended.
   */
  drain(): { streamsEnded: number };
  /**
   * Part of a shutdown with a shared store: stops taking delivery jobs and gives the
   * unfinished ones back at once, leases released and progress kept, for another instance
   * to resume (docs/contract/durable-delivery.md#durable-handback) instead of waiting them
   * out. Answers how many jobs it gave back. With a store only this process sees (memory),
   * let `idle()` finish them instead: nobody else would.
   */
  handBackDeliveries(): Promise<number>;
  /** True once `drain()` was called. */
  readonly draining: boolean;
  /** What the mobile app does: accounts, tokens, activities, widgets, devices, shares. */
  readonly management: ManagementApi;
  /** Loads a seed file through the management API: creates what is missing, changes nothing that exists. */
  loadSeed(seed: unknown): Promise<SeedResult>;
  /** The generated OpenAPI 3.1 document served at `/openapi.json`. */
  openapi(): object;
  /** Resolves once background work (device pushes, webhook deliveries) started so far has settled. */
  idle(): Promise<void>;
  /** Stops timers and ends this instance's streams' wake-ups. Does not close the storage (the host owns it). */
  close(): Promise<void>;
}

export const DEFAULT_SSE_TIMINGS: SseTimings = { pingMs: 20_000, lifetimeMs: 15 * 60_000 };
export const DEFAULT_PURGE_INTERVAL_MS = 30_000;

/**
 * The composition root: owns every piece of state of one Tilecast instance, so two
 * instances in one process never share anything by accident.
 */
export function createTilecast(options: TilecastOptions): Tilecast {
  const clock = options.clock ?? systemClock;
  const logger = options.logger ?? consoleLogger;
  const { storage } = options;
  const observer =
    options.observer === undefined
      ? undefined
      : safeObserver(options.observer, (method, error) => logger.error('observer failed', { method, error: String(error) }));
  const sseDeviceTransport = createSseDeviceTransport(observer);
  const hostTransports = hostTransportsOf(options.transport);
  const devices = createDeviceFanout({
    storage,
    deviceStream: sseDeviceTransport,
    hosts: observer === undefined ? hostTransports : hostTransports.map((transport) => observedTransport(transport, observer)),
    clock,
    logger,
    observer,
    delivery: options.delivery,
    hasReceivers: () => hostTransports.length > 0 || sseDeviceTransport.connectedDevices() > 0,
  });
  const bus = createEventBus(storage);
  const webhooks = createWebhookDispatcher({ ...options.webhooks, storage, clock, logger, observer });
  const streamSlots = createStreamSlots(storage, clock, logger);
  const credentialWatch = createCredentialWatch(storage, clock, logger, options.credentialCheckMs ?? DEFAULT_CREDENTIAL_CHECK_MS);
  const sseConnections = createSseConnectionRegistry(observer);
  // Whose request it was, for the request observation: noted by authentication, only when observed.
  const requestAccounts = observer === undefined ? undefined : new WeakMap<CoreRequest, string>();
  const noteAccount = requestAccounts === undefined ? undefined : (request: CoreRequest, accountId: string) => void requestAccounts.set(request, accountId);
  const authenticateDevice = options.authenticateDevice ?? deviceTokenAuthenticator(storage);
  let openapiDocument: object | undefined;

  const context: TilecastContext = {
    storage,
    clock,
    logger,
    observer,
    devices,
    widgetWrites: new WidgetWrites(
      storage,
      clock,
      (written) => devices.widgetChanged(written.widget, written.job, written.audience),
      () => devices.writeClaim(),
    ),
    webhooks,
    bus,
    frames: createFrameCache(),
    streamSlots,
    credentialWatch,
    sseDeviceTransport,
    sseConnections,
    readiness: createReadinessCheck({
      storage,
      clock,
      logger,
      deadlineMs: options.readinessDeadlineMs ?? DEFAULT_READINESS_DEADLINE_MS,
      draining: () => sseConnections.draining,
      lateAfterMs: options.delivery?.lateAfterMs ?? DEFAULT_DELIVERY_LATE_AFTER_MS,
      observer,
    }),
    credentials: new PublisherCredentials(storage, noteAccount),
    authenticateDevice: noteAccount === undefined ? authenticateDevice : notingDeviceAccount(authenticateDevice, noteAccount),
    sse: { ...DEFAULT_SSE_TIMINGS, ...options.sse },
    // Fire-and-forget: a slow receiver never delays the press intake or the stream.
    onEvent: (accountId, widgetSlug, event) => webhooks.dispatch(accountId, widgetSlug, event),
    openapi: () => (openapiDocument ??= buildOpenApiDocument({ ...options.openapi, title: options.title ?? 'Tilecast' })),
  };
  const management = createManagementApi(storage);
  const purgeInterval = options.purgeIntervalMs ?? DEFAULT_PURGE_INTERVAL_MS;
  const stopHousekeeping = purgeInterval > 0 ? startHousekeeping(storage, clock, logger, purgeInterval) : () => {};

  const devicePath = options.openapi?.devicePath ?? DEFAULT_DEVICE_PATH;
  const observation: HandlerObservation | undefined = observer && requestAccounts ? { observer, accounts: requestAccounts } : undefined;
  return {
    ...createHandler(context, publisherRoutes, '', observation),
    device: createHandler(context, deviceRoutes, devicePath.replace(/\/+$/, ''), observation),
    health: createHandler(context, healthRoutes, '', observation),
    drain: () => ({ streamsEnded: sseConnections.drain() }),
    handBackDeliveries: () => devices.handBack(),
    get draining() {
      return sseConnections.draining;
    },
    management,
    loadSeed: (seed) => loadSeed(management, seed),
    openapi: context.openapi,
    idle: async () => {
      await Promise.all([devices.idle(), webhooks.idle()]);
    },
    async close() {
      stopHousekeeping();
      await devices.close();
      webhooks.close();
      bus.close();
      streamSlots.close();
      credentialWatch.close();
      await Promise.all([devices.idle(), webhooks.idle()]);
    },
  };
}

/** What a handler needs to report its requests: only present when the instance is observed. */
interface HandlerObservation {
  observer: SafeObserver;
  /** Accounts noted by authentication, per request. */
  accounts: WeakMap<CoreRequest, string>;
}

/** Where the device API is mounted when `openapi.devicePath` does not say (the reference deployment's path). */
const DEFAULT_DEVICE_PATH = '/device';

/**
 * Routes a request and turns every failure into the specified response. `prefix`: where the
 * handler is mounted (`/device` for the device API), in its logs' paths and route labels.
 */
function createHandler(context: TilecastContext, routes: Route<TilecastContext>[], prefix: string, observation?: HandlerObservation): Required<RequestHandler> {
  const router = createRouter(routes);
  const failed = (request: CoreRequest, error: unknown): CoreResult => {
    const path = prefix + request.path;
    if (isTilecastError(error)) {
      // The client went away mid-body: its own doing, not a failure (and no one to answer).
      if (error.error.kind === 'request_aborted') context.logger.info('request aborted', { method: request.method, path });
      return errorToResult(error.error);
    }
    if (isStorageUnavailable(error)) {
      context.logger.warn('storage unavailable', { method: request.method, path, error: describeError(error) });
      context.observer?.storeError({ kind: storeErrorKind(error) });
      return errorToResult({ kind: 'storage_unavailable' });
    }
    context.logger.error('request failed', { method: request.method, path, error: String(error) });
    return internalErrorResult();
  };
  // Not an async function: on the hot path that would add a promise, a suspended frame and
  // a microtask per request around the handler's own promise. `matched`, when given, is told
  // the pattern of the route the request took.
  const answer = (request: CoreRequest, matched?: (pattern: string) => void): Promise<CoreResult> => {
    let pending: Promise<CoreResult>;
    try {
      const match = router.match(request);
      if ('error' in match) return Promise.resolve(errorToResult(match.error));
      matched?.(match.pattern);
      pending = match.handler(context, request, match.params);
    } catch (error) {
      return Promise.resolve(failed(request, error));
    }
    return pending.catch((error: unknown) => failed(request, error));
  };
  // Every answer to a HEAD, refusals included, is the GET's head without its body.
  const run = (request: CoreRequest, matched?: (pattern: string) => void): Promise<CoreResult> =>
    request.method === 'HEAD' ? answer(request, matched).then(headOf) : answer(request, matched);
  // Unobserved, requests take the path above as it is: no time stamp, no label, no object.
  if (observation === undefined) return { handle: (request) => run(request), owns: router.owns };
  return { handle: observedHandle(run, routes, prefix, observation), owns: router.owns };
}

/** A HEAD's answer; a body that does not serialise is the `500` a GET would get (its head). */
function headOf(result: CoreResult): CoreResult {
  try {
    return headOnly(result);
  } catch {
    return headOnly(internalErrorResult());
  }
}

/** `run` with the request reported when answered: its route pattern, status, duration and account. */
function observedHandle(
  run: (request: CoreRequest, matched: (pattern: string) => void) => Promise<CoreResult>,
  routes: Route<TilecastContext>[],
  prefix: string,
  { observer, accounts }: HandlerObservation,
): (request: CoreRequest) => Promise<CoreResult> {
  // The labels are the documented patterns (`/widget/{slug}`), made once.
  const labels = new Map(routes.map((route) => [route.pattern, prefix + route.pattern.replace(/:([^/]+)/g, '{$1}')]));
  return (request) => {
    const started = performance.now();
    let route = UNMATCHED_ROUTE;
    return run(request, (pattern) => (route = labels.get(pattern) ?? UNMATCHED_ROUTE)).then((result) => {
      const accountId = accounts.get(request) ?? null;
      observer.requestFinished({ method: request.method, route, status: statusOf(result), durationMs: performance.now() - started, accountId });
      return result;
    });
  };
}

/** An event stream's status is `200`: its headers go out with the first write. */
function statusOf(result: CoreResult): number {
  return result.kind === 'sse' ? 200 : result.status;
}

/** Device authentication that notes the device's account for the request observation. */
function notingDeviceAccount(authenticate: DeviceAuthenticator, note: (request: CoreRequest, accountId: string) => void): DeviceAuthenticator {
  return (request) =>
    Promise.resolve(authenticate(request)).then((device) => {
      if (device !== null) note(request, device.accountId);
      return device;
    });
}

/** The host's transports as a list: none, one, or the several it gave. */
function hostTransportsOf(transport: TilecastOptions['transport']): readonly DeviceTransport[] {
  if (transport === undefined) return [];
  return isTransportList(transport) ? transport : [transport];
}

function isTransportList(transport: DeviceTransport | readonly DeviceTransport[]): transport is readonly DeviceTransport[] {
  return Array.isArray(transport);
}
