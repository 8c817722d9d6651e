// Baseline for W1: a bare node:http server that, for each `POST /press`, answers 202 and
// sends the same signed POST (envelope body, Idempotency-Key, X-Svc-Timestamp,
// X-Svc-Signature) to the receiver with a plain keep-alive https client. It also serves
// P1's bare `PATCH /widget/…` route, so W1 can measure what the same deliveries take from
// a bare publisher (the like-for-like baseline of "P1 under W1").
import { createHash, createHmac } from 'node:crypto';
import { Agent, request } from 'node:https';
import { barePublisher } from '../lib/bare-publish.mjs';
import { readBody, serve } from '../lib/serve.mjs';
import { pressEvent } from '../lib/press-event.mjs';

const url = new URL(process.env.BENCH_WEBHOOK_URL);
const secret = process.env.BENCH_WEBHOOK_SECRET;
const agent = new Agent({ keepAlive: true, ca: process.env.BENCH_WEBHOOK_CA });

function deliver(envelope) {
  const body = JSON.stringify(envelope);
  const timestamp = Math.floor(Date.now() / 1000);
  const bodySha = createHash('sha256').update(body).digest('hex');
  const signature = createHmac('sha256', secret).update(`${timestamp}.POST.${url.href}.${bodySha}.${envelope.id}`).digest('hex');
  const req = request(url, {
    method: 'POST',
    agent,
    timeout: 2000,
    headers: { 'content-type': 'application/json', 'idempotency-key': envelope.id, 'x-svc-timestamp': String(timestamp), 'x-svc-signature': `v1=${signature}` },
  });
  req.on('response', (res) => res.resume());
  req.on('error', () => {});
  req.end(body);
}

const publish = barePublisher('widget');

await serve(async (req, res) => {
  if (req.method === 'PATCH') return publish(req, res);
  const { account, request_id } = JSON.parse(await readBody(req));
  const envelope = pressEvent(request_id);
  res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ event_id: envelope.id, account }));
  deliver(envelope);
});
