import { constants, createSecureServer, type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from './certificate.js';

export interface DoubleServerOptions {
  /** The certificate's common name (a client trusting two doubles finds each one's certificate by it). */
  name: string;
  /** The SETTINGS_MAX_CONCURRENT_STREAMS the double announces. */
  maxConcurrentStreams: number;
  /** How much of a request's body is kept: chunks stop being kept once this many bytes came (the size counts them all). */
  keepBytes: number;
  /** A connection was accepted (and numbered). */
  onSession?(session: Http2Session): void;
  /** True to refuse a request before it is counted or read (`REFUSED_STREAM`): a service turning connections away. */
  refuses?(): boolean;
  /** A request's stream closed (answered, reset, or its connection gone). */
  onStreamClose?(stream: ServerHttp2Stream): void;
  /** A request, once its body came: the body as kept, and the whole body's size. */
  onRequest(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, body: Buffer, size: number): void;
}

export interface DoubleServer {
  /** `https://127.0.0.1:<port>`. */
  readonly origin: string;
  /** The certificate (PEM) to trust. */
  readonly cert: string;
  /** 1 for the first connection accepted, 2 for the next... (0 for one it does not know). */
  connectionOf(session: Http2Session): number;
  /** Streams open now, the most ever open at once, and connections accepted. */
  stats(): { openStreams: number; peakOpenStreams: number; connections: number };
  /** Destroys every connection and stops listening. */
  close(): Promise<void>;
}

/**
 * The HTTP/2 server of a push service's test double (the APNs and FCM transports'): TLS on
 * 127.0.0.1 with a self-signed certificate made at start, its connections numbered and
 * its streams counted, each request handed over once its body came. What the service
 * checks and answers is the double's own (`onRequest`). For tests and demos only.
 */
export async function startDoubleServer(options: DoubleServerOptions): Promise<DoubleServer> {
  const { key, cert } = selfSignedCertificate(options.name);
  const server = createSecureServer({ key, cert, settings: { maxConcurrentStreams: options.maxConcurrentStreams } });
  const sessions = new Set<Http2Session>();
  const sessionIds = new WeakMap<Http2Session, number>();
  let connections = 0;
  let openStreams = 0;
  let peakOpenStreams = 0;

  server.on('session', (session) => {
    sessions.add(session);
    sessionIds.set(session, ++connections);
    session.on('close', () => sessions.delete(session));
    session.on('error', () => {});
    options.onSession?.(session);
  });

  server.on('stream', (stream, headers) => {
    if (options.refuses?.()) {
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    openStreams += 1;
    peakOpenStreams = Math.max(peakOpenStreams, openStreams);
    stream.on('close', () => {
      openStreams -= 1;
      options.onStreamClose?.(stream);
    });
    stream.on('error', () => {});
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= options.keepBytes) chunks.push(chunk);
    });
    stream.on('end', () => options.onRequest(stream, headers, Buffer.concat(chunks), size));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });

  return {
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    cert,
    connectionOf: (session) => sessionIds.get(session) ?? 0,
    stats: () => ({ openStreams, peakOpenStreams, connections }),
    async close() {
      for (const session of sessions) session.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
