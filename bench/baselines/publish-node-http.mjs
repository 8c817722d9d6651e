// Baseline for P1/P3: bare node:http that reads the body, validates the content with the
// same valibot schema Tilecast uses, stores it in a Map and answers with the validated content.
import * as v from 'valibot';
import { activityContentSchemas, widgetContentSchemas } from '@tilecast/core/schemas';
import { readBody, serve } from '../lib/serve.mjs';

const kind = process.argv[2]; // 'widget' | 'activity'
const schema = kind === 'activity' ? activityContentSchemas.progress : widgetContentSchemas.switchboard;
const store = new Map();

await serve(async (req, res) => {
  const body = JSON.parse(await readBody(req));
  const result = v.safeParse(schema, body.content, { abortEarly: false, abortPipeEarly: true });
  if (!result.success) {
    res.writeHead(422, { 'content-type': 'application/json' }).end('{"detail":"invalid"}');
    return;
  }
  store.set(req.url, result.output);
  const payload = JSON.stringify(kind === 'activity' ? { state: body.state, content: result.output } : { content: result.output, stale_after: null });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
});
