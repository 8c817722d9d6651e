import type { Clock } from '@tilecast/core';
import { ApnsConnection, type ApnsAnswer } from './connection.js';
import type { ApnsRequest } from './request.js';

/** Streams open and requests waiting for one, per origin. */
export type ConnectionLoad = Record<string, { active: number; waiting: number }>;

/**
 * Where the transport sends its requests: one HTTP/2 connection per APNs origin, on this
 * thread (`ConnectionPool`) or in a worker thread of its own (`WorkerConnectionPool`).
 */
export interface Connections {
  /** POSTs the push to `origin` with `authorization` and answers what came of it. */
  request(origin: string, request: ApnsRequest, authorization: string): Promise<ApnsAnswer>;
  load(): ConnectionLoad;
  /** Closes every connection; requests not yet answered answer `network` (transport closed). */
  close(): Promise<void>;
}

export interface ConnectionPoolOptions {
  ca?: string | Buffer | Array<string | Buffer>;
  maxConcurrentStreams: number;
  requestTimeoutMs: number;
  clock: Clock;
  /** Source of the reconnect jitter, in [0, 1). */
  random: () => number;
  /** A connection to `origin` replaced one that was lost. */
  onReconnect: (origin: string) => void;
}

/** The connections on this thread: made on first use per origin, kept until `close`. */
export class ConnectionPool implements Connections {
  private readonly connections = new Map<string, ApnsConnection>();

  constructor(private readonly options: ConnectionPoolOptions) {}

  request(origin: string, request: ApnsRequest, authorization: string): Promise<ApnsAnswer> {
    return this.connectionTo(origin).request(request, authorization);
  }

  load(): ConnectionLoad {
    return Object.fromEntries([...this.connections].map(([origin, connection]) => [origin, connection.load()]));
  }

  async close(): Promise<void> {
    for (const connection of this.connections.values()) connection.close();
    this.connections.clear();
  }

  private connectionTo(origin: string): ApnsConnection {
    let connection = this.connections.get(origin);
    if (connection === undefined) {
      const { ca, maxConcurrentStreams, requestTimeoutMs, clock, random, onReconnect } = this.options;
      connection = new ApnsConnection({ origin, ca, maxConcurrentStreams, requestTimeoutMs, clock, random, onReconnect: () => onReconnect(origin) });
      this.connections.set(origin, connection);
    }
    return connection;
  }
}
