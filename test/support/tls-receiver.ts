/**
 * A local HTTPS webhook receiver for tests: a certificate authority and a server
 * certificate made with `openssl` at test time, a server on 127.0.0.1 (port 0) that
 * answers with a script and records every request and every TCP connection.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestCertificates {
  ca: string;
  key: string;
  cert: string;
}

/** Names the server certificate is valid for. */
export const RECEIVER_NAMES = ['localhost', 'receiver.test', 'rebind.test', 'internal.test'];

export function makeCertificates(): TestCertificates {
  const dir = mkdtempSync(join(tmpdir(), 'tilecast-webhook-tls-'));
  const file = (name: string) => join(dir, name);
  const run = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '2', '-subj', '/CN=Tilecast Test CA');
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('server.key'), '-out', file('server.csr'), '-subj', '/CN=localhost');
    const san = [...RECEIVER_NAMES.map((name) => `DNS:${name}`), 'IP:127.0.0.1'].join(',');
    writeFileSync(file('ext.cnf'), `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
    run(
      'x509',
      '-req',
      '-in',
      file('server.csr'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file('server.pem'),
      '-days',
      '2',
      '-extfile',
      file('ext.cnf'),
    );
    return { ca: readFileSync(file('ca.pem'), 'utf8'), key: readFileSync(file('server.key'), 'utf8'), cert: readFileSync(file('server.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
