// Diagnostic: in-process cost of one PATCH against the baseline's work.
import * as v from 'valibot';
import { createTilecast, silentLogger } from '@tilecast/core';
import { activityContentSchemas, widgetContentSchemas } from '@tilecast/core/schemas';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { widgetBody, activityBody } from '../lib/payloads.mjs';
import { compareInProcess } from '../lib/in-process.mjs';
import { activityAnswer, widgetAnswer } from '../lib/spec-echo.mjs';
import { commandLine } from '../lib/cli.mjs';

const usage = `
Usage: node bench/tools/inproc.mjs [widget|activity] [calls]

In-process cost of one PATCH /widget/lights (1 KB switchboard, as P1) or PATCH
/activity/order (progress, as P3) through the core's handle() on the memory store, no
sockets, against the bare work of the P1/P3 baselines (parse, the same valibot schema,
a Map, the specified answer). Three rounds of each side after a 20,000-call warm-up;
prints µs per call and Tilecast's added µs.

  widget|activity  which PATCH (default widget)
  calls            calls per round and side (default 200000)

Environment:
  ONLY=b|t  run only the baseline (b) or Tilecast (t), once: for node --cpu-prof
`;
const { positionals } = commandLine(usage);
const kind = positionals[0] ?? 'widget';
if (kind !== 'widget' && kind !== 'activity') {
  console.error(usage.trim());
  process.exit(2);
}
const N = Number(positionals[1] ?? 200000);
const tilecast = createTilecast({ storage: createMemoryStorage(), logger: silentLogger });
const m = tilecast.management;
const { token } = await m.createAccount({ id: 'bench', activityQuota: 10 });
await m.createWidget({ account: 'bench', slug: 'lights', template: 'switchboard' });
await m.createActivity({ account: 'bench', slug: 'order', template: 'progress' });
const bytes = Buffer.from(kind === 'activity' ? activityBody() : widgetBody());
const path = kind === 'activity' ? '/activity/order' : '/widget/lights';
const headers = { 'content-type': 'application/json', authorization: `Token ${token}`, 'content-length': String(bytes.length) };
const request = () => ({
  method: 'PATCH',
  path,
  query: new URLSearchParams(''),
  headers,
  body: { kind: 'raw', read: async () => bytes },
  signal: undefined,
});

const schema = kind === 'activity' ? activityContentSchemas.progress : widgetContentSchemas.switchboard;
const store = new Map();
async function baseline() {
  const body = JSON.parse(bytes.toString());
  const result = v.safeParse(schema, body.content, { abortEarly: false, abortPipeEarly: true });
  store.set(path, result.output);
  return JSON.stringify(kind === 'activity' ? activityAnswer(body.state, result.output) : widgetAnswer(result.output));
}
async function tile() {
  const result = await tilecast.handle(request());
  if (result.status !== 200) throw new Error(JSON.stringify(result));
  return JSON.stringify(result.body);
}
await compareInProcess({ baseline, tilecast: tile, calls: N });
