import { Http2Connection, type ConnectionSettings, type PushAnswer } from './connection.js';
import type { PushRequest } from './request-format.js';

/** Streams open and requests waiting for one, per origin. */
export type ConnectionLoad = Record<string, { active: number; waiting: number }>;

/**
 * Where a transport sends its requests: one HTTP/2 connection per origin, on this thread
 * (`ConnectionPool`) or in a worker thread of its own (`WorkerConnectionPool`).
 */
export interface Connections<R extends PushRequest> {
  /** Sends the push to `origin` with `authorization` and answers what came of it. */
  request(origin: string, request: R, authorization: string): Promise<PushAnswer>;
  load(): ConnectionLoad;
  /** Closes every connection; requests not yet answered answer `network` (transport closed). */
  close(): Promise<void>;
}

export interface ConnectionPoolOptions<R extends PushRequest> extends ConnectionSettings<R> {
  /** A connection to `origin` replaced one that was lost. */
  onReconnect: (origin: string) => void;
}

/** The connections on this thread: made on first use per origin, kept until `close`. */
export class ConnectionPool<R extends PushRequest> implements Connections<R> {
  private readonly connections = new Map<string, Http2Connection<R>>();

  constructor(private readonly options: ConnectionPoolOptions<R>) {}

  request(origin: string, request: R, authorization: string): Promise<PushAnswer> {
    return this.connectionTo(origin).request(request, authorization);
  }

  load(): ConnectionLoad {
    return Object.fromEntries([...this.connections].map(([origin, connection]) => [origin, connection.load()]));
  }

  async close(): Promise<void> {
    for (const connection of this.connections.values()) connection.close();
    this.connections.clear();
  }

  private connectionTo(origin: string): Http2Connection<R> {
    let connection = this.connections.get(origin);
    if (connection === undefined) {
      const { onReconnect, ...settings } = this.options;
      connection = new Http2Connection({ ...settings, origin, onReconnect: () => onReconnect(origin) });
      this.connections.set(origin, connection);
    }
    return connection;
  }
}
