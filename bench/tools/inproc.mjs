// In-process cost of one PATCH (no sockets): Tilecast's handle() against the baseline's work.
import * as v from 'valibot';
import { createTilecast, silentLogger } from '@tilecast/core';
import { activityContentSchemas, widgetContentSchemas } from '@tilecast/core/schemas';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { widgetBody, activityBody } from '../lib/payloads.mjs';
import { compareInProcess } from '../lib/in-process.mjs';
import { activityAnswer, widgetAnswer } from '../lib/spec-echo.mjs';

const kind = process.argv[2] ?? 'widget';
const N = Number(process.argv[3] ?? 200000);
const tilecast = createTilecast({ storage: createMemoryStorage(), logger: silentLogger });
const m = tilecast.management;
const { token } = await m.createAccount({ id: 'bench', activityQuota: 10 });
await m.createWidget({ account: 'bench', slug: 'lights', template: 'switchboard' });
await m.createActivity({ account: 'bench', slug: 'order', template: 'progress' });
const bytes = Buffer.from(kind === 'activity' ? activityBody() : widgetBody());
const path = kind === 'activity' ? '/activity/order' : '/widget/lights';
const headers = { 'content-type': 'application/json', authorization: `Token ${token}`, 'content-length': String(bytes.length) };
const request = () => ({ method: 'PATCH', path, query: new URLSearchParams(''), headers, body: { kind: 'stream', read: async () => bytes }, signal: undefined });

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
