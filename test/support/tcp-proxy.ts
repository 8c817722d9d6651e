/**
 * A TCP proxy on 127.0.0.1 that a test can freeze: `pause()` stops forwarding bytes in
 * both directions while every socket stays open (and new connections are still
 * accepted, then held), as a frozen server or a dead network path looks to a client;
 * `resume()` forwards again, held bytes first. `resumeNewOnly()` is a dead network path
 * that comes back: the connections held so far stay frozen for good (open, never
 * answered), new ones work. `stop()` closes every connection and refuses new ones (a
 * stopped server); `start()` listens again on the same port.
 */
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** `url` (a `postgres://` URL, say) with its host and port replaced by the proxy's. */
  via(url: string): string;
  pause(): void;
  resume(): void;
  /** New connections flow again; those opened before stay frozen (never forwarded, never closed). */
  resumeNewOnly(): void;
  readonly paused: boolean;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Closes every connection and refuses new ones (ECONNREFUSED). */
  stop(): Promise<void>;
  /** Listens again, on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  /** Frozen for good by `resumeNewOnly()`. */
  const dead = new WeakSet<Socket>();
  let paused = false;
  let accepted = 0;
  let port = 0;
  let server: Server | undefined;

  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
    if (paused) socket.pause();
  };

  /** In order, with backpressure; a paused socket is simply not read (not pipe(): its 'drain' resumes the source). */
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => {
      if (to.write(chunk)) return;
      from.pause();
      to.once('drain', () => {
        if (!paused && !dead.has(from)) from.resume();
      });
    });
    from.on('end', () => to.end());
  };

  const onConnection = (downstream: Socket) => {
    accepted += 1;
    const upstream = connect(target.port, target.host);
    track(downstream);
    track(upstream);
    forward(downstream, upstream);
    forward(upstream, downstream);
    downstream.on('close', () => upstream.destroy());
    upstream.on('close', () => downstream.destroy());
  };

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer(onConnection);
      s.once('error', reject);
      s.listen(port, '127.0.0.1', () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });

  const stop = async () => {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  };

  await listen();
  return {
    get port() {
      return port;
    },
    via(url) {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.toString();
    },
    pause() {
      paused = true;
      for (const socket of sockets) socket.pause();
    },
    resume() {
      paused = false;
      for (const socket of sockets) if (!dead.has(socket)) socket.resume();
    },
    resumeNewOnly() {
      paused = false;
      for (const socket of sockets) dead.add(socket);
    },
    get paused() {
      return paused;
    },
    get accepted() {
      return accepted;
    },
    stop,
    start: listen,
    close: stop,
  };
}
