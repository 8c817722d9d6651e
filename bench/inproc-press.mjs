// Diagnostic: in-process cost of one `POST /device/presses` (no sockets, no streams open),
// against the baseline's per-press work (parse, envelope, frame, answer).
import { randomUUID } from 'node:crypto';
import { createTilecast, silentLogger } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { compareInProcess } from './lib/in-process.mjs';

const N = Number(process.argv[2] ?? 100000);
const ACCOUNTS = 1000;
let t = Date.now();
const clock = { now: () => t, setTimeout: (fn, ms) => setTimeout(fn, ms).unref(), clearTimeout: (h) => clearTimeout(h) };
const storage = createMemoryStorage();
const tilecast = createTilecast({ storage, clock, logger: silentLogger, purgeIntervalMs: 0 });
const m = tilecast.management;
for (let n = 0; n < ACCOUNTS; n++) {
  await m.createAccount({ id: `bench-${n}`, token: `tok_bench_${n}` });
  await m.registerDevice({ id: `phone-${n}`, account: `bench-${n}`, token: `dev_bench_${n}` });
  await m.createWidget({ account: `bench-${n}`, slug: 'panel', template: 'switchboard' });
  await storage.setWidgetContent(`bench-${n}`, 'panel', { content: { template: 'switchboard', actions: [{ id: 'go', label: 'Go', kind: 'button' }] }, staleAfter: undefined, now: t });
}
let i = 0;
async function press() {
  const n = i++ % ACCOUNTS;
  if (n === 0) t += 1000; // refill the buckets
  const bytes = Buffer.from(JSON.stringify({ owner: `bench-${n}`, slug: 'panel', request_id: `r-${i}`, action: 'go' }));
  const result = await tilecast.device.handle({ method: 'POST', path: '/presses', query: new URLSearchParams(''), headers: { 'content-type': 'application/json', authorization: `Device dev_bench_${n}` }, body: { kind: 'stream', read: async () => bytes } });
  if (result.status !== 202) throw new Error(JSON.stringify(result));
  return JSON.stringify(result.body);
}
async function baseline() {
  const n = i++ % ACCOUNTS;
  const bytes = Buffer.from(JSON.stringify({ account: n, request_id: `r-${i}` }));
  const { request_id } = JSON.parse(bytes.toString());
  const now = Date.now();
  const event = { id: randomUUID(), request_id, type: 'widget.action.v1', subject: { kind: 'widget', slug: 'panel' }, occurred_at: new Date(now).toISOString(), expires_at: new Date(now + 5000).toISOString(), data: { action: 'go', kind: 'button' } };
  const frame = `id: u:${i}\ndata: ${JSON.stringify(event)}\n\n`;
  return frame + JSON.stringify({ event_id: event.id });
}
await compareInProcess({ baseline, tilecast: press, calls: N });
process.exit(0);
