// `node bench/compare.mjs <script> <arg> [<script> <arg>]…`: a diagnostic. Runs the P1 load
// against each server alternately (ROUNDS rounds, default 3; each a new process, 3 s warm-up, 3 s
// measured) and prints median req/s and server CPU per request.
import { hammer } from '../lib/load.mjs';
import { publishHeaders } from '../lib/http.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';
import { median, round } from '../lib/stats.mjs';
import { widgetBody, activityBody } from '../lib/payloads.mjs';

pinLoadGenerator(import.meta.url);

const pairs = [];
for (let i = 2; i < process.argv.length; i += 2) pairs.push([process.argv[i], process.argv[i + 1]]);
const path = process.env.BENCH_PATH ?? '/widget/lights';
const body = path.startsWith('/activity') ? activityBody() : widgetBody();
const results = pairs.map(() => ({ rps: [], cpu: [] }));
for (let round_ = 0; round_ < Number(process.env.ROUNDS ?? 3); round_++) {
  for (const [i, [script, arg]] of pairs.entries()) {
    const server = await startServer(script, { args: [arg] });
    const headers = publishHeaders(server);
    await hammer({ url: server.url + path, headers, body, duration: 3 });
    const before = await server.cpu();
    const load = await hammer({ url: server.url + path, headers, body, duration: 3 });
    const after = await server.cpu();
    results[i].rps.push(load.requestsPerSecond);
    results[i].cpu.push((after - before) / load.requests);
    await server.stop();
  }
}
for (const [i, [script, arg]] of pairs.entries()) {
  console.log(`${`${script} ${arg}`.padEnd(45)} ${String(round(median(results[i].rps), 0)).padStart(7)} req/s  ${round(median(results[i].cpu), 2)} µs/req`);
}
