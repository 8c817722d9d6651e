// Diagnostic: a CPU profile of one server under the P1 load, its heaviest functions printed.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine, outputDirectory } from '../lib/cli.mjs';
import { publishHeaders } from '../lib/http.mjs';
import { hammer } from '../lib/load.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';
import { widgetBody, activityBody } from '../lib/payloads.mjs';

const usage = `
Usage: node bench/tools/profile.mjs [--out DIR] <server script> [args...]

Runs one server (a script relative to bench/, with its arguments) with node --cpu-prof,
drives it for 5 s with the P1 load (autocannon, 50 connections, PATCH /widget/lights with
the 1 KB switchboard body), prints the load's figures, the 35 functions with the most
self time, and the inclusive time of the functions named in BENCH_TOTALS. E.g.

  node bench/tools/profile.mjs servers/tilecast.mjs node-http
  node bench/tools/profile.mjs baselines/publish-node-http.mjs widget

  --out DIR   where the .cpuprofile goes (default: a new directory under the system's
              temporary directory; its path is printed)

Environment:
  BENCH_PATH=/widget/lights   the path PATCHed; /activity/order sends the activity body
  BENCH_TOTALS=a,b,...        function names whose inclusive time is printed
`;
const { positionals, values } = commandLine(usage, { out: { type: 'string' } });
if (positionals.length === 0) {
  console.error(usage.trim());
  process.exit(2);
}

pinLoadGenerator(import.meta.url);

const [script, ...args] = positionals;
const dir = outputDirectory(values.out, 'tilecast-prof');
const server = await startServer(script, { args, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
const path = process.env.BENCH_PATH ?? '/widget/lights';
const body = path.startsWith('/activity') ? activityBody() : widgetBody();
const headers = publishHeaders(server);
console.log(await hammer({ url: server.url + path, headers, body, duration: 5 }));
await server.stop();
const file = join(
  dir,
  readdirSync(dir)
    .filter((name) => name.endsWith('.cpuprofile'))
    .sort()
    .at(-1),
);
console.log(`profile: ${file}`);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const self = new Map();
const dt = profile.timeDeltas;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
profile.samples.forEach((id, i) => {
  const { callFrame } = byId.get(id);
  const key = `${callFrame.functionName || '(anonymous)'} ${callFrame.url.split('/').slice(-3).join('/')}:${callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
for (const [key, time] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 35))
  console.log(`${((100 * time) / total).toFixed(1).padStart(5)} %  ${key}`);

// Inclusive time of the functions named in BENCH_TOTALS (synchronous parts only).
const names = (
  process.env.BENCH_TOTALS ??
  'authenticateAccount,readJsonBodySized,updateWidget,patchWidget,writeCoreResult,throttledWidgetPush,pushWidget,confirmPressers,toCoreRequest,validate,setWidgetContent,getWidget,copy,handleNodeRequest'
).split(',');
const children = new Map(profile.nodes.map((n) => [n.id, n.children ?? []]));
const selfById = new Map();
profile.samples.forEach((id, i) => selfById.set(id, (selfById.get(id) ?? 0) + (dt[i] ?? 0)));
const inclusive = (id) => (selfById.get(id) ?? 0) + children.get(id).reduce((sum, c) => sum + inclusive(c), 0);
console.log('\ninclusive:');
for (const name of names) {
  const nodes = profile.nodes.filter((n) => n.callFrame.functionName === name);
  // Count only outermost occurrences (a recursive function would be counted twice otherwise).
  const ids = new Set(nodes.map((n) => n.id));
  const parentOf = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parentOf.set(c, n.id);
  const outer = nodes.filter((n) => {
    let p = parentOf.get(n.id);
    while (p !== undefined) {
      if (ids.has(p)) return false;
      p = parentOf.get(p);
    }
    return true;
  });
  const time = outer.reduce((sum, n) => sum + inclusive(n.id), 0);
  console.log(`${((100 * time) / total).toFixed(1).padStart(5)} %  ${name}`);
}
