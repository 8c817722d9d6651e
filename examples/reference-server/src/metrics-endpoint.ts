import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { splitUrl } from '@tilecast/adapter-node-http';
import type { Registry } from 'prom-client';

/** The path Prometheus scrapes. */
export const METRICS_PATH = '/metrics';

/** `GET /metrics` (and `HEAD`): the registry in Prometheus' text format; any other method `405`. */
export function metricsListener(registry: Registry): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' }).end('Method Not Allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      () => {
        res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('metrics unavailable\n');
      },
    );
  };
}

/** A server of its own for `/metrics` (`TILECAST_METRICS_PORT`); every other path is `404`. */
export async function listenForMetrics(registry: Registry, port: number, host: string): Promise<{ url: string; server: Server }> {
  const serve = metricsListener(registry);
  const server = createServer((req, res) => {
    if (splitUrl(req.url ?? '/').path === METRICS_PATH) return serve(req, res);
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not Found\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return { url: `http://${shownHost}:${address.port}${METRICS_PATH}`, server };
}
