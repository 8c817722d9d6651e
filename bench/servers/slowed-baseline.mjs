// Diagnostic: the P1 baseline plus a fixed busy wait of argv[2] µs per request. Run it
// next to the baseline (`node bench/tools/compare.mjs baselines/publish-node-http.mjs widget
// servers/slowed-baseline.mjs 8`) to see what a few µs of extra work cost a server under
// this load: more than those µs, since a slower server wakes the load generator more often.
import * as v from 'valibot';
import { widgetContentSchemas } from '@tilecast/core/schemas';
import { readBody, serve } from '../lib/serve.mjs';

const extraNanos = BigInt(Math.round(Number(process.argv[2] ?? 0) * 1000));
const schema = widgetContentSchemas.switchboard;
const store = new Map();

await serve(async (req, res) => {
  const body = JSON.parse(await readBody(req));
  const result = v.safeParse(schema, body.content, { abortEarly: false, abortPipeEarly: true });
  store.set(req.url, result.output);
  const until = process.hrtime.bigint() + extraNanos;
  while (process.hrtime.bigint() < until);
  const payload = JSON.stringify({ content: result.output, stale_after: null });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
});
