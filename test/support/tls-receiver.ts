/**
 * A local HTTPS webhook receiver for tests: a self-signed certificate made at test time
 * (node:crypto, the APNs test double's maker), a server on 127.0.0.1 (port 0) that
 * answers with a script and records every request and every TCP connection.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { selfSignedCertificate } from '@tilecast/transport-apns/test-double';

export interface TestCertificates {
  ca: string;
  key: string;
  cert: string;
}

/** Names the server certificate is valid for. */
export const RECEIVER_NAMES = ['localhost', 'receiver.test', 'rebind.test', 'internal.test'];

/** A certificate for {@link RECEIVER_NAMES} and 127.0.0.1 that is its own CA (made with node:crypto, no openssl). */
export function makeCertificates(): TestCertificates {
  const { key, cert } = selfSignedCertificate('Tilecast webhook test receiver', 2, [...RECEIVER_NAMES, '127.0.0.1']);
  return { ca: cert, key, cert };
}

export interface ReceivedRequest {
  method: string;
  /** `https://<Host header><path and query>`: what a receiver rebuilds to verify the signature. */
  url: string;
  headers: IncomingMessage['headers'];
  /** Names and values as received, in order (for names such as `__proto__`). */
  rawHeaders: string[];
  body: string;
}

/** Answers one request. The default answer is `200`. */
export type Answer = (request: ReceivedRequest, res: ServerResponse) => void;

export interface Receiver {
  port: number;
  requests: ReceivedRequest[];
  /** TCP connections accepted. */
  connections(): number;
  /** Answers for the next requests, in order. */
  script(...answers: Answer[]): void;
  close(): Promise<void>;
}

export const status =
  (code: number, headers: Record<string, string> = {}): Answer =>
  (_request, res) => {
    res.writeHead(code, headers);
    res.end('receiver body');
  };

export async function startReceiver(certificates: TestCertificates): Promise<Receiver> {
  const requests: ReceivedRequest[] = [];
  const queue: Answer[] = [];
  let connections = 0;
  const server: Server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        url: `https://${req.headers.host}${req.url}`,
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      (queue.shift() ?? status(200))(request, res);
    });
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    connections: () => connections,
    script: (...answers) => void queue.push(...answers),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
