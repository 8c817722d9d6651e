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

/** A publisher's `PATCH` headers for a bench server: JSON, and its token when it has one (baselines have none). */
export function publishHeaders(server) {
  return { 'content-type': 'application/json', ...(server.token ? { authorization: `Token ${server.token}` } : {}) };
}
