// `node bench/profile.mjs <server script> [args…]`: runs the P1 load against one server
// with --cpu-prof and prints the functions with the most self time. For finding causes.
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { publishHeaders } from '../lib/http.mjs';
import { hammer } from '../lib/load.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';
import { widgetBody, activityBody } from '../lib/payloads.mjs';

pinLoadGenerator(import.meta.url);

const [script, ...args] = process.argv.slice(2);
const dir = '/tmp/tilecast-prof';
rmSync(dir, { recursive: true, force: true });
const server = await startServer(script, { args, nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
const path = process.env.BENCH_PATH ?? '/widget/lights';
const body = path.startsWith('/activity') ? activityBody() : widgetBody();
const headers = publishHeaders(server);
console.log(await hammer({ url: server.url + path, headers, body, duration: 5 }));
await server.stop();
const profile = JSON.parse(readFileSync(`${dir}/${readdirSync(dir)[0]}`, 'utf8'));
const self = new Map();
const dt = profile.timeDeltas;
const byId = new Map(profile.nodes.map((n) => [n.id, n]));
profile.samples.forEach((id, i) => {
  const { callFrame } = byId.get(id);
  const key = `${callFrame.functionName || '(anonymous)'} ${callFrame.url.split('/').slice(-3).join('/')}:${callFrame.lineNumber + 1}`;
  self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
});
const total = [...self.values()].reduce((a, b) => a + b, 0);
for (const [key, time] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 35)) console.log(`${((100 * time) / total).toFixed(1).padStart(5)} %  ${key}`);

// Inclusive time of the functions named in BENCH_TOTALS (synchronous parts only).
const names = (process.env.BENCH_TOTALS ?? 'authenticateAccount,readJsonBodySized,updateWidget,patchWidget,writeCoreResult,throttledWidgetPush,pushWidget,confirmPressers,toCoreRequest,validate,setWidgetContent,getWidget,copy,handleNodeRequest').split(',');
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
  const outer = nodes.filter((n) => { let p = parentOf.get(n.id); while (p !== undefined) { if (ids.has(p)) return false; p = parentOf.get(p); } return true; });
  const time = outer.reduce((sum, n) => sum + inclusive(n.id), 0);
  console.log(`${((100 * time) / total).toFixed(1).padStart(5)} %  ${name}`);
}
