import { Agent, request } from 'node:http';

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

/** One JSON request over a shared keep-alive pool; resolves with the status (the body is drained). */
export function send(method, port, path, headers, body) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A publisher's `PATCH` headers for a bench server: JSON and a token, the same bytes for
 * every server. Tilecast's is its own token; a baseline, which checks none, gets one of the
 * same form and length, so that both parse the same requests.
 */
export function publishHeaders(server) {
  return { 'content-type': 'application/json', authorization: `Token ${server.token ?? BASELINE_TOKEN}` };
}

/** Shaped like a generated token (`tok_` and 256 random bits in base64url). */
const BASELINE_TOKEN = `tok_${'b'.repeat(43)}`;
