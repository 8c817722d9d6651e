// Diagnostic: bytes allocated per in-process `POST /device/presses`, by allocating function
// (V8's sampling heap profiler, keeping the objects young collections freed).
import { Session } from 'node:inspector/promises';
import { createTilecast, silentLogger } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';

const N = Number(process.argv[2] ?? 50000);
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
  if (n === 0) t += 1000;
  const bytes = Buffer.from(`{"owner":"bench-${n}","slug":"panel","request_id":"r-${i}","action":"go"}`);
  const result = await tilecast.device.handle({ method: 'POST', path: '/presses', query: new URLSearchParams(''), headers: { 'content-type': 'application/json', authorization: `Device dev_bench_${n}` }, body: { kind: 'stream', read: async () => bytes } });
  if (result.status !== 202) throw new Error(JSON.stringify(result));
  return JSON.stringify(result.body);
}
for (let k = 0; k < N; k++) await press(); // warm
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', { samplingInterval: 64, includeObjectsCollectedByMinorGC: !process.env.LIVE, includeObjectsCollectedByMajorGC: !process.env.LIVE });
for (let k = 0; k < N; k++) await press();
const { profile } = await session.post('HeapProfiler.stopSampling');
const bySite = new Map();
let total = 0;
(function walk(node) {
  const self = node.selfSize;
  if (self > 0) {
    const f = node.callFrame;
    const name = `${f.functionName || '(anon)'} ${f.url.replace(/.*\/(packages|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    bySite.set(name, (bySite.get(name) ?? 0) + self);
    total += self;
  }
  for (const child of node.children) walk(child);
})(profile.head);
console.log(`bytes allocated per press (sampled): ${Math.round(total / N)}`);
for (const [name, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(process.argv[3] ?? 30))) console.log(`${String(Math.round(bytes / N)).padStart(7)}  ${name}`);
process.exit(0);
