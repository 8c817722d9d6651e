// W1's webhook receiver: a local HTTPS server on 127.0.0.1:443 (the only port webhooks
// may use) with a certificate made for the run, shared by the scenario and the
// instruction counter.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The webhook secret both W1 servers sign with. */
export const WEBHOOK_SECRET = 'whsec_bench_0123456789';

/** The environment that points a W1 server (baseline or Tilecast) at the receiver. */
export const webhookEnv = (tls) => ({ BENCH_WEBHOOK_URL: 'https://localhost/hook', BENCH_WEBHOOK_SECRET: WEBHOOK_SECRET, BENCH_WEBHOOK_CA: tls.ca });

/** A CA and a certificate for localhost, made with openssl for this run. */
export function certificates() {
  const dir = mkdtempSync(join(tmpdir(), 'tilecast-bench-tls-'));
  const file = (name) => join(dir, name);
  const run = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=Bench CA');
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('key.pem'), '-out', file('csr.pem'), '-subj', '/CN=localhost');
    writeFileSync(file('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
    run(
      'x509',
      '-req',
      '-in',
      file('csr.pem'),
      '-CA',
      file('ca.pem'),
      '-CAkey',
      file('ca.key'),
      '-CAcreateserial',
      '-out',
      file('cert.pem'),
      '-days',
      '1',
      '-extfile',
      file('ext.cnf'),
    );
    return { ca: readFileSync(file('ca.pem'), 'utf8'), key: readFileSync(file('key.pem'), 'utf8'), cert: readFileSync(file('cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The receiver on 127.0.0.1:443 (the only port webhooks may use): records when each press arrives. */
export async function startReceiver(tls, onArrival) {
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const now = performance.now();
      const requestId = /"request_id":"([^"]+)"/.exec(body)?.[1];
      const signed = typeof req.headers['x-svc-signature'] === 'string' && typeof req.headers['idempotency-key'] === 'string';
      if (requestId && signed) onArrival(requestId, now);
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  let handshakes = 0;
  server.on('secureConnection', () => handshakes++);
  await new Promise((resolve, reject) => server.once('error', reject).listen(443, '127.0.0.1', resolve));
  return { handshakes: () => handshakes, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))) };
}
