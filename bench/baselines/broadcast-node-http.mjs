// Baseline for S3: a bare node:http server holding device streams (`GET /device/stream`)
// and broadcasting the latest `PATCH /widget/panel` content to all of them, throttled
// the same way Tilecast is (the first update at once, then at most one per 2 s carrying
// the latest content), so both have the same inherent delay.
import { readBody, serve } from '../lib/serve.mjs';

const streams = new Set();
let latest;
let windowOpen = false;
let trailing = false;

const broadcast = () => {
  const frame = `event: widget\ndata: ${JSON.stringify({ owner: 'bench-0', slug: 'panel', content: latest, stale_after: null, updated_at: new Date().toISOString(), privacy: 'visible' })}\n\n`;
  for (const res of streams) res.write(frame);
};
const closeWindow = () => {
  if (trailing) {
    trailing = false;
    broadcast();
    setTimeout(closeWindow, 2000);
  } else windowOpen = false;
};

await serve(async (req, res) => {
  if (req.method === 'GET' && req.url === '/device/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform' });
    res.write('retry: 1000\n\n');
    streams.add(res);
    res.on('close', () => streams.delete(res));
    return;
  }
  if (req.method === 'PATCH' && req.url === '/widget/panel') {
    latest = JSON.parse(await readBody(req)).content;
    if (!windowOpen) {
      windowOpen = true;
      broadcast();
      setTimeout(closeWindow, 2000);
    } else trailing = true;
    const payload = JSON.stringify({ content: latest, stale_after: null });
    return void res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
  }
  res.writeHead(404).end();
});
