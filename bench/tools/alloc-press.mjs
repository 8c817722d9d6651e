// Diagnostic: bytes allocated per in-process `POST /device/presses`, by allocating function
// (V8's sampling heap profiler, keeping the objects young collections freed).
import { Session } from 'node:inspector/promises';
import { inProcessPresses } from '../lib/in-process-presses.mjs';

const N = Number(process.argv[2] ?? 50000);
const press = await inProcessPresses(1000);
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
