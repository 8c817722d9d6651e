// Diagnostic: bytes allocated and collections per request of P1's and P1H's servers.
import autocannon from 'autocannon';
import { commandLine } from '../lib/cli.mjs';
import { publishHeaders } from '../lib/http.mjs';
import { widgetBody } from '../lib/payloads.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';

const { values } = commandLine(
  `
Usage: node bench/tools/allocations.mjs [--requests N] [--connections N] [--top N] [--only LIST]

Sends P1's request (PATCH /widget/lights, the 1 KB switchboard body, autocannon) to the
Hono route (P1H's baseline), Tilecast in Hono (P1H), P1's node:http baseline and Tilecast
on node:http, one after the other, each warmed up first (25,000 requests and a full
collection). Then, counted in the server (lib/allocation-probe.mjs, preloaded with
--import): bytes allocated per request (the heap's used size before and after every
collection, V8's GCProfiler), scavenges per 10,000 requests, the bytes each scavenge kept
(copied or promoted: what its work grows with), its time, full collections, the
collections' time and the server's CPU per request. Bytes, scavenges and bytes kept do not
depend on the machine's load; the times do.

  --requests N     requests counted per server (default 20000)
  --connections N  connections at once (default 50, as the bench's load)
  --top N          then a second count with V8's sampling heap profiler, listing per server
                   the N functions that allocate the most per request (default 0: none)
  --only LIST      comma-separated servers: hono, p1h, node-http, p1 (default all four)

Environment:
  ALLOC_V8_FLAGS   V8 flags the servers set at start, e.g. --no-turbo-inlining: the sampling
                   heap profiler names an optimized function's callers only, so what inlined
                   functions allocate is listed under them unless inlining is off (which
                   changes what escape analysis removes: compare bytes without it)
`,
  { requests: { type: 'string' }, connections: { type: 'string' }, top: { type: 'string' }, only: { type: 'string' } },
);
const requests = Number(values.requests ?? 20_000);
const connections = Number(values.connections ?? 50);
const top = Number(values.top ?? 0);
const chosen = (values.only ?? 'hono,p1h,node-http,p1').split(',');
if (![requests, connections].every((n) => Number.isInteger(n) && n >= 1) || !(Number.isInteger(top) && top >= 0)) {
  console.error('--requests, --connections and --top take a whole number');
  process.exit(2);
}

pinLoadGenerator(import.meta.url);

const servers = {
  hono: ['Hono route', 'baselines/publish-hono.mjs', []],
  p1h: ['Tilecast in Hono (P1H)', 'servers/tilecast.mjs', ['fetch']],
  'node-http': ['node:http route (P1)', 'baselines/publish-node-http.mjs', ['widget']],
  p1: ['Tilecast on node:http (P1)', 'servers/tilecast.mjs', ['node-http']],
};
const unknown = chosen.filter((key) => servers[key] === undefined);
if (unknown.length > 0) {
  console.error(`unknown server ${unknown.join(', ')}; known: ${Object.keys(servers).join(', ')}`);
  process.exit(2);
}
const probe = new URL('../lib/allocation-probe.mjs', import.meta.url).href;
const body = widgetBody();

const load = async (server, amount) => {
  const result = await autocannon({ url: `${server.url}/widget/lights`, method: 'PATCH', headers: publishHeaders(server), body, connections, amount });
  if (result.non2xx > 0 || result.errors > 0 || result.requests.total !== amount) throw new Error(`load: ${result.non2xx} non-2xx, ${result.errors} errors`);
};
const counted = async (server, sample) => {
  await server.ask({ type: 'alloc-start', sample }, 'alloc-started');
  await load(server, requests);
  return server.ask({ type: 'alloc-stop' }, 'alloc', 120_000);
};

console.log(`per request, ${requests.toLocaleString('en')} requests over ${connections} connections`);
console.log(`${'server'.padEnd(28)} ${'bytes'.padStart(7)}  scavenges/10k  kept/scavenge  µs/scavenge  full/10k  GC µs  CPU µs`);
for (const key of chosen) {
  const [name, script, args] = servers[key];
  const server = await startServer(script, { args, nodeArgs: ['--import', probe] });
  try {
    await load(server, 20_000);
    await server.stats(); // a full collection before counting
    await load(server, 5_000);
    const { allocated, collections, gcMicros, scavengeMicros, survived, cpuMicros } = await counted(server, false);
    const scavenges = collections.Scavenge ?? 0;
    const per10k = (n) => ((n ?? 0) * 10_000) / requests;
    const full = Object.entries(collections).reduce((n, [type, k]) => (type === 'Scavenge' || type === 'MinorMarkSweep' ? n : n + k), 0);
    console.log(
      `${name.padEnd(28)} ${String(Math.round(allocated / requests)).padStart(7)}  ${per10k(scavenges).toFixed(1).padStart(13)}  ${String(Math.round(survived / scavenges)).padStart(13)}  ${(scavengeMicros / scavenges).toFixed(0).padStart(11)}  ${per10k(full).toFixed(1).padStart(8)}  ${(gcMicros / requests).toFixed(2).padStart(5)}  ${(cpuMicros / requests).toFixed(1).padStart(6)}`,
    );
    if (top > 0) {
      const { sites } = await counted(server, true);
      const sampled = Object.values(sites).reduce((a, b) => a + b, 0);
      console.log(`  sampled ${Math.round(sampled / requests)} bytes per request; the most:`);
      for (const [site, bytes] of Object.entries(sites)
        .sort((a, b) => b[1] - a[1])
        .slice(0, top))
        console.log(`  ${String(Math.round(bytes / requests)).padStart(7)}  ${site.slice(0, 110)}`);
    }
  } finally {
    await server.stop();
  }
}
