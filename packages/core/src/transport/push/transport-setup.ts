import { systemClock, type Clock } from '../../clock.js';
import { silentLogger, type Logger } from '../../logger.js';
import { ConnectionPool, type Connections } from './connection-pool.js';
import type { PushCounters } from './counters.js';
import type { PushRequest, RequestFormat } from './request-format.js';
import { WorkerConnectionPool } from './worker-pool.js';

/** The options every push transport takes for its connections, retries and time; its own options extend these. */
export interface PushTransportOptions {
  /** CAs to trust for the service's origins instead of Node's defaults (`NODE_EXTRA_CA_CERTS` also works). */
  ca?: string | Buffer | Array<string | Buffer>;
  /** Streams open at once per connection (default 100); more requests wait in order. */
  maxConcurrentStreams?: number;
  /** A request (a push, or FCM's token request) without an answer after this long is cancelled and retried (default 10 s). */
  requestTimeoutMs?: number;
  /**
   * Where the HTTP/2 connections run. `'worker'` (the default): in a worker thread of their
   * own, so that the TLS, framing and garbage of a fan-out to thousands of devices never
   * hold the event loop that answers your requests; request timeouts then follow the real
   * time, not `clock`. `'main'`: on this thread, every timer on `clock` (tests). FCM's token
   * endpoint is always asked from this thread (once an hour).
   */
  connectionThread?: 'worker' | 'main';
  /** Base delay of the first retry (default 1 s; doubled for the second, jittered). */
  retryBaseMs?: number;
  clock?: Clock;
  logger?: Logger;
  /** Source of the retry jitter, in [0, 1). */
  random?: () => number;
}

/** `PushTransportOptions` with their defaults filled in. */
export type PushTransportSettings = Required<Omit<PushTransportOptions, 'ca'>> & Pick<PushTransportOptions, 'ca'>;

export function pushTransportSettings(options: PushTransportOptions): PushTransportSettings {
  return {
    ca: options.ca,
    maxConcurrentStreams: options.maxConcurrentStreams ?? 100,
    requestTimeoutMs: options.requestTimeoutMs ?? 10_000,
    connectionThread: options.connectionThread ?? 'worker',
    retryBaseMs: options.retryBaseMs ?? 1000,
    clock: options.clock ?? systemClock,
    logger: options.logger ?? silentLogger,
    random: options.random ?? Math.random,
  };
}

/** What a push transport's `backlog()` answers. */
export interface PushBacklog {
  /** Pushes waiting to be worked on (at most one per device and activity or widget). */
  queued: number;
  /** Pushes at work: being looked up, waiting for a stream, or sent and waiting for the answer. */
  working: number;
  /** Pushes waiting to retry. */
  retrying: number;
  /** The (device, activity or widget) pairs with a push in the transport. */
  keys: number;
}

export interface PushConnectionsSetup<R extends PushRequest> {
  /** What the logs start with: `apns`, `fcm`. */
  name: string;
  format: RequestFormat<R>;
  /** The transport's connection-worker script (`workerScriptPath`), asked for only when the connections run there. */
  workerScript: () => string;
  settings: PushTransportSettings;
  /** Where reconnects are counted. */
  counters: Pick<PushCounters, 'reconnects'>;
}

/** A transport's connections, in a worker thread of their own or on this one (`connectionThread`), reconnects counted and logged. */
export function pushConnections<R extends PushRequest>(setup: PushConnectionsSetup<R>): Connections<R> {
  const { name, format, settings, counters } = setup;
  const { ca, maxConcurrentStreams, requestTimeoutMs, clock, random, logger } = settings;
  const onReconnect = (origin: string) => {
    counters.reconnects += 1;
    logger.info(`${name}: reconnecting`, { origin });
  };
  if (settings.connectionThread === 'worker') {
    return new WorkerConnectionPool({
      script: setup.workerScript(),
      format,
      ca,
      maxConcurrentStreams,
      requestTimeoutMs,
      onReconnect,
      onWorkerExit: (reason) => logger.error(`${name}: connection worker stopped; its requests are retried`, { reason }),
    });
  }
  return new ConnectionPool({ format, ca, maxConcurrentStreams, requestTimeoutMs, clock, random, onReconnect });
}
