import { createTilecast, silentLogger } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
const storage = createMemoryStorage();
const t = createTilecast({ storage, logger: silentLogger });
const N = 2500;
for (let n = 0; n < N; n++) await t.management.createAccount({ id: `a${n}`, token: `tok_bench_${n}` });
const useSignal = process.argv[2] !== 'nosignal';
const sinks = [];
global.gc(); const before = process.memoryUsage().heapUsed;
for (let i = 0; i < N * 4; i++) {
  const controller = useSignal ? new AbortController() : undefined;
  const result = await t.handle({ method: 'GET', path: '/events', query: new URLSearchParams(''), headers: { authorization: `Token tok_bench_${i >> 2}` }, body: { kind: 'parsed', value: undefined }, signal: controller?.signal });
  const sinkController = controller ?? new AbortController();
  const sink = { bufferedBytes: 0, signal: sinkController.signal, write: async () => {}, end() {} };
  sinks.push(sink, controller);
  void result.run(sink);
}
await new Promise((r) => setTimeout(r, 200));
global.gc(); const after = process.memoryUsage().heapUsed;
console.log('heap bytes per stream', Math.round((after - before) / (N * 4)), storage.stats().leases);
const v8 = await import('node:v8');
const fs = await import('node:fs');
const file = v8.writeHeapSnapshot('/tmp/heap.heapsnapshot');
const snap = JSON.parse(fs.readFileSync(file, 'utf8'));
const f = snap.snapshot.meta.node_fields; const types = snap.snapshot.meta.node_types[0];
const nf = f.length; const nodes = snap.nodes; const strings = snap.strings;
const iType = f.indexOf('type'), iName = f.indexOf('name'), iSize = f.indexOf('self_size');
const agg = new Map();
for (let i = 0; i < nodes.length; i += nf) {
  const key = `${types[nodes[i + iType]]}:${strings[nodes[i + iName]].slice(0, 60)}`;
  const e = agg.get(key) ?? [0, 0]; e[0]++; e[1] += nodes[i + iSize]; agg.set(key, e);
}
for (const [k, [c, s]] of [...agg.entries()].filter(([, [c]]) => c >= 9000).sort((a, b) => b[1][1] - a[1][1]).slice(0, 40)) console.log(String(c).padStart(7), String(s).padStart(10), k);
