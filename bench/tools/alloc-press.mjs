// Diagnostic: bytes allocated per in-process press, by allocating function.
import { Session } from 'node:inspector/promises';
import { commandLine } from '../lib/cli.mjs';
import { inProcessPresses } from '../lib/in-process-presses.mjs';

const { positionals } = commandLine(`
Usage: node bench/tools/alloc-press.mjs [presses] [rows]

Bytes allocated per in-process \`POST /device/presses\` (the core's device.handle() on the
memory store, 1,000 accounts, no sockets), by the function that allocated them, from V8's
sampling heap profiler. Runs \`presses\` presses to warm up, then \`presses\` sampled.

  presses   presses warmed up and then sampled (default 50000)
  rows      functions listed, most bytes first (default 30)

Environment:
  LIVE=1    count only what is still alive at the end (what a press leaves in the old
            generation), instead of everything allocated
`);
const N = Number(positionals[0] ?? 50000);
const rows = Number(positionals[1] ?? 30);
const press = await inProcessPresses(1000);
for (let k = 0; k < N; k++) await press(); // warm
const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', {
  samplingInterval: 64,
  includeObjectsCollectedByMinorGC: !process.env.LIVE,
  includeObjectsCollectedByMajorGC: !process.env.LIVE,
});
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
for (const [name, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, rows)) console.log(`${String(Math.round(bytes / N)).padStart(7)}  ${name}`);
process.exit(0);
