// W1's webhook receiver: a local HTTPS server on 127.0.0.1:443 (the only port webhooks
// may use) with a certificate made for the run, shared by the scenario and the
// instruction counter.
import { createServer } from 'node:https';
import { selfSignedCertificate } from '@tilecast/transport-apns/test-double';

/** The webhook secret both W1 servers sign with. */
export const WEBHOOK_SECRET = 'whsec_bench_0123456789';

/** The environment that points a W1 server (baseline or Tilecast) at the receiver. */
export const webhookEnv = (tls) => ({ BENCH_WEBHOOK_URL: 'https://localhost/hook', BENCH_WEBHOOK_SECRET: WEBHOOK_SECRET, BENCH_WEBHOOK_CA: tls.ca });

/** A certificate for localhost and 127.0.0.1 made for this run, its own CA (node:crypto, no openssl). */
export function certificates() {
  const { key, cert } = selfSignedCertificate('Bench webhook receiver', 1);
  return { ca: cert, key, cert };
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
