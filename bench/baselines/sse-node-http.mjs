// Baseline for S1/S2/S4: a bare node:http SSE server. `GET /events` (Authorization:
// Token tok_bench_<n>) holds a stream of account n; `POST /press` {account} writes one
// event to that account's streams (routed by account in a Map) and answers 202.
import { readBody, serve } from '../lib/serve.mjs';
import { pressEvent } from '../lib/press-event.mjs';

const streams = new Map(); // account → Set<res>
let position = 0;

await serve(async (req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/events')) {
    const account = /^Token tok_bench_(\d+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (account === undefined) return void res.writeHead(401).end();
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    res.write(`retry: 1000\nid: u:${position}\n\n`);
    let set = streams.get(account);
    if (!set) streams.set(account, (set = new Set()));
    set.add(res);
    res.on('close', () => set.delete(res));
    return;
  }
  if (req.method === 'POST' && req.url === '/press') {
    const { account, request_id } = JSON.parse(await readBody(req));
    const event = pressEvent(request_id);
    const frame = `id: u:${++position}\ndata: ${JSON.stringify(event)}\n\n`;
    for (const stream of streams.get(String(account)) ?? []) stream.write(frame);
    const payload = JSON.stringify({ event_id: event.id });
    return void res.writeHead(202, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
  }
  res.writeHead(404).end();
});
