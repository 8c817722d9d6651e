import { readFile } from 'node:fs/promises';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createRequestListener, listen, mount, splitUrl } from '@tilecast/adapter-node-http';
import { combineObservers, consoleLogger, createTilecast, type Logger, type Observer, type Storage, type Tilecast } from '@tilecast/core';
import { createTilecastMetrics, type TilecastMetrics } from '@tilecast/metrics';
import { collectDefaultMetrics, type Registry } from 'prom-client';
import { createSimulatorPage } from '@tilecast/simulator/page';
import type { ApnsTransport } from '@tilecast/transport-apns';
import type { FcmTransport } from '@tilecast/transport-fcm';
import { describeApns, prepareApns } from './apns.js';
import type { ServerConfig } from './config.js';
import { createDemoAccount, demoInstructions, type DemoAccount } from './demo.js';
import { describeFcm, prepareFcm } from './fcm.js';
import { requestLogObserver } from './logging.js';
import { listenForMetrics, METRICS_PATH, metricsListener } from './metrics-endpoint.js';
import type { MetricsConfig } from './observability-config.js';
import { openStorage } from './storage.js';

export interface ReferenceServer {
  url: string;
  tilecast: Tilecast;
  /** Where Prometheus scrapes (`TILECAST_METRICS`, `TILECAST_METRICS_PORT`), or null when metrics are off. */
  metricsUrl: string | null;
  /**
   * What to print at start on a terminal: where it listens, the storage (its URL without
   * credentials), APNs, FCM, what the seed loaded and the demo account, with the tokens generated
   * now and a working curl line.
   */
  banner: string;
  /** {@link banner} without a token: what to print when the output is not a terminal. */
  bannerWithoutTokens: string;
  /** Stops at once: open connections (streams included) are cut. For tests and failed starts. */
  close(): Promise<void>;
  /**
   * The graceful stop of SIGTERM and SIGINT, each step logged: `/readyz` turns `503` and
   * the server stops accepting; open event and device streams end with a last `retry:`;
   * with PostgreSQL, unfinished delivery jobs are handed back for another instance;
   * requests in flight, device pushes and webhook deliveries get `shutdownGraceMs` to
   * finish; then what is left is cut, the APNs and FCM transports (pushes not yet sent are
   * dropped and counted), Tilecast and the store are closed.
   */
  shutdown(): Promise<void>;
}

/** How often a shutdown closes the connections that became idle (a stream or request ended). */
const IDLE_SWEEP_MS = 50;

/** Paths of the health probes, served at the root next to the API. */
const HEALTH_PATHS = new Set(['/healthz', '/readyz']);

/** Builds and starts the reference deployment. Used by `npm start` and by the end-to-end tests. */
export async function startReferenceServer(config: ServerConfig, logger: Logger = consoleLogger): Promise<ReferenceServer> {
  const apnsFactory = config.apns === null ? null : await prepareApns(config.apns, logger);
  const fcmFactory = config.fcm === null ? null : await prepareFcm(config.fcm, logger);
  const opened = await openStorage(config.databaseUrl, config.databaseSchema, logger, config.databaseDeadlines);
  const { storage } = opened;
  // The core logs a warning when private targets are allowed; NODE_EXTRA_CA_CERTS trusts a test receiver's CA.
  // APNs and FCM, when configured, are transports beside the device stream: every push goes
  // to each (a device with an APNs and an FCM token gets both; one without a token of a
  // transport is skipped by it).
  const apns = apnsFactory?.(storage);
  const fcm = fcmFactory?.(storage);
  const transports: PushTransport[] = [...(apns === undefined ? [] : [apns]), ...(fcm === undefined ? [] : [fcm])];
  const metrics = config.metrics.serve === 'off' ? null : serverMetrics(storage, transports);
  // One log line per request, and the metrics when they are on.
  const observer: Observer = metrics === null ? requestLogObserver(logger) : combineObservers(requestLogObserver(logger), metrics.observer);
  const tilecast = createTilecast({
    storage,
    logger,
    observer,
    sse: config.sse,
    delivery: config.delivery,
    webhooks: { allowPrivateNetworks: config.webhookAllowPrivate },
    transport: transports,
  });
  await opened.ready();
  const seeded = await seed(tilecast, config);
  // The device API lives under /device; its stream is this deployment's device transport.
  const api = mount({ '/': tilecast, '/device': tilecast.device });
  const health = createRequestListener(tilecast.health);
  const isHealthProbe = (req: IncomingMessage): boolean => HEALTH_PATHS.has(splitUrl(req.url ?? '/').path);
  // The simulator page answers `GET /` and its assets before Tilecast's 404. Only the demo
  // phone's token is handed to it, and only when the demo was asked for (TILECAST_DEMO):
  // a seeded deployment never gives a token away.
  const page = createSimulatorPage({ config: seeded.demo?.deviceToken ? { deviceToken: seeded.demo.deviceToken } : null });
  // Its own port first: a port already taken stops the start before the API listens.
  const ownPort = metrics !== null ? await metricsOnOwnPort(metrics.registry, config.metrics, config.host) : null;
  const onMainPort = metrics !== null && config.metrics.serve === 'main' ? metricsListener(metrics.registry) : null;
  const metricsOr = (req: IncomingMessage, res: ServerResponse): void =>
    onMainPort !== null && splitUrl(req.url ?? '/').path === METRICS_PATH ? onMainPort(req, res) : api(req, res);
  const server = await listen((req, res) => (page(req, res) ? undefined : isHealthProbe(req) ? health(req, res) : metricsOr(req, res)), {
    port: config.port,
    host: config.host,
    ...config.timeouts,
  });
  const metricsUrl = onMainPort !== null ? `${server.url}${METRICS_PATH}` : (ownPort?.url ?? null);
  const closeOwnPort = (): Promise<void> =>
    ownPort === null ? Promise.resolve() : new Promise((resolve) => ownPort.server.close(() => resolve()).closeAllConnections());
  return {
    url: server.url,
    metricsUrl,
    tilecast,
    banner: banner(server.url, opened.description, config, seeded, true),
    bannerWithoutTokens: banner(server.url, opened.description, config, seeded, false),
    async close() {
      await closeOwnPort();
      await server.close();
      await tilecast.close();
      for (const transport of transports) await transport.close();
      await opened.close();
    },
    async shutdown() {
      const grace = config.shutdownGraceMs;
      // Stop accepting (idle keep-alive connections close now) and drain, in one step: no
      // client told to reconnect can reach this instance again.
      const connectionsClosed = new Promise<void>((resolve) => server.server.close(() => resolve()));
      const { streamsEnded } = tilecast.drain();
      logger.info('shutdown: draining, /readyz answers 503', { grace_ms: grace });
      logger.info('shutdown: stopped accepting connections');
      logger.info('shutdown: ended open streams with a last retry', { streams: streamsEnded });
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<'cut'>((resolve) => {
        timer = setTimeout(() => resolve('cut'), grace);
      });
      // A connection whose stream or request just ended stays open for keep-alive until its
      // client or the keep-alive timeout closes it: closed as soon as it is idle instead.
      const sweep = setInterval(() => server.server.closeIdleConnections(), IDLE_SWEEP_MS);
      // With PostgreSQL, unfinished delivery jobs go back to the store at once for another
      // instance to resume (docs/contract/durable-delivery.md#durable-handback); requests
      // still in flight write theirs there too. The memory store has nobody else: its jobs
      // are finished within the grace period, as before.
      if (config.databaseUrl !== null) {
        const released = await tilecast.handBackDeliveries();
        logger.info('shutdown: delivery jobs handed back', { jobs: released });
      }
      const drained = Promise.all([connectionsClosed, tilecast.idle()]).then(() => 'drained' as const);
      const outcome = await Promise.race([drained, graceOver]);
      clearTimeout(timer);
      clearInterval(sweep);
      if (outcome === 'drained') logger.info('shutdown: requests, pushes and webhook deliveries finished');
      else logger.warn('shutdown: grace period over, cutting what is left', { grace_ms: grace });
      server.server.closeAllConnections();
      // Closed before Tilecast: a push still waiting for APNs or FCM (a stalled stream, a
      // `retry-after` of minutes) is dropped now, so that Tilecast's close, which waits
      // for every push handed over, ends at once rather than when the service answers.
      const droppedBefore = transports.map((transport) => transport.counters().dropped);
      await Promise.all(transports.map((transport) => transport.close()));
      await tilecast.close();
      logger.info('shutdown: Tilecast closed');
      transports.forEach((transport, at) => {
        const dropped = transport.counters().dropped - droppedBefore[at]!;
        logger.info(`shutdown: ${TRANSPORT_LABELS[transport.name ?? ''] ?? transport.name} closed, unsent pushes dropped`, { dropped });
      });
      // Scraped until here: the last scrape sees the drain.
      await closeOwnPort();
      await opened.close();
      logger.info('shutdown: store closed');
    },
  };
}

/** A push transport of the reference server's: what it closes at shutdown and counts in the metrics. */
type PushTransport = ApnsTransport | FcmTransport;

/** What the shutdown log calls each. */
const TRANSPORT_LABELS: Readonly<Record<string, string>> = { apns: 'APNs', fcm: 'FCM' };

/** Tilecast's metrics, the push transports' counters and the process's (CPU, memory, event loop), in one registry. */
function serverMetrics(storage: Storage, transports: readonly PushTransport[]): TilecastMetrics {
  const metrics = createTilecastMetrics({ storage, transports });
  collectDefaultMetrics({ register: metrics.registry });
  return metrics;
}

/** The metrics server of `TILECAST_METRICS_PORT`, or null when they are served on the main port. */
async function metricsOnOwnPort(registry: Registry, config: MetricsConfig, host: string): Promise<{ url: string; server: Server } | null> {
  return config.serve === 'port' ? listenForMetrics(registry, config.port, host) : null;
}

interface Seeded {
  /** The banner's lines about the seed and the demo account, with or without tokens. */
  lines: (url: string, showTokens: boolean) => string[];
  /** The demo account, when it is on (`TILECAST_DEMO`). */
  demo: DemoAccount | null;
}

function banner(url: string, storage: string, config: ServerConfig, seeded: Seeded, showTokens: boolean): string {
  return [`Storage: ${storage}`, describeApns(config.apns), describeFcm(config.fcm), ...seeded.lines(url, showTokens), `Device simulator: ${url}/`].join('\n');
}

/** The seed file, if any, then the demo account, if it is on: each creates only what is missing. */
async function seed(tilecast: Tilecast, config: ServerConfig): Promise<Seeded> {
  const loaded = config.seedPath === null ? null : await loadSeedFile(tilecast, config.seedPath);
  const demo = config.demo ? await createDemoAccount(tilecast, config.demoRotate) : null;
  return {
    lines: (url, showTokens) => [...(loaded?.(showTokens) ?? []), ...(demo === null ? [] : [demoInstructions(url, demo, showTokens)])],
    demo,
  };
}

async function loadSeedFile(tilecast: Tilecast, seedPath: string): Promise<(showTokens: boolean) => string[]> {
  // Creates only what is missing: what the app and the API changed survives a restart.
  const file = JSON.parse(await readFile(seedPath, 'utf8'));
  const result = await tilecast.loadSeed(file);
  const accounts = result.accounts.map((a) => `${a.id} (${a.created ? 'created' : 'exists, left as it is'})`).join(', ');
  return (showTokens) => [`Loaded ${seedPath}: accounts ${accounts}`, ...generatedTokens(file, result, showTokens)];
}

/**
 * The tokens generated now for what the seed created without one: printed once, as they
 * are stored hashed (the instance that created the record prints them; the others find
 * it existing), and only on a terminal; otherwise how to issue new ones. Tokens the file
 * gives are not repeated in the log.
 */
function generatedTokens(file: unknown, result: Awaited<ReturnType<Tilecast['loadSeed']>>, showTokens: boolean): string[] {
  const given = new Set<string>();
  for (const account of (file as { accounts?: { token?: string; devices?: { token?: string }[] }[] }).accounts ?? []) {
    if (account.token !== undefined) given.add(account.token);
    for (const device of account.devices ?? []) if (device.token !== undefined) given.add(device.token);
  }
  const notShown = 'generated, printed only on a terminal (this output is not one)';
  return [
    ...result.accounts
      .filter((a) => a.token !== null && !given.has(a.token))
      .map((a) => `Account "${a.id}": API token ${showTokens ? a.token : `${notShown}; issue a new one with: npx tilecast tokens rotate ${a.id}`}`),
    ...result.devices
      .filter((d) => d.token !== null && !given.has(d.token))
      .map(
        (d) =>
          `Device "${d.id}" of "${d.account}": device token ${showTokens ? d.token : `${notShown}; issue a new one with: npx tilecast devices remove ${d.id} && npx tilecast devices register ${d.account} ${d.id}`}`,
      ),
  ];
}
