// Diagnostic: several servers alternately under the P1 load, median req/s and CPU per request.
import { hammer } from '../lib/load.mjs';
import { publishHeaders } from '../lib/http.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';
import { median, round } from '../lib/stats.mjs';
import { widgetBody, activityBody } from '../lib/payloads.mjs';
import { commandLine } from '../lib/cli.mjs';

const usage = `
Usage: node bench/tools/compare.mjs <script> <arg> [<script> <arg>]...

Runs the P1 load (autocannon, 50 connections, PATCH with the 1 KB switchboard body)
against each server in turn, ROUNDS times: each round starts a new process per server,
warms it for 3 s and measures 3 s. Prints each server's median req/s and median server
CPU per request. Scripts are relative to bench/ and take exactly one argument, e.g.

  node bench/tools/compare.mjs baselines/publish-node-http.mjs widget servers/tilecast.mjs node-http

Environment:
  ROUNDS=3                    rounds (default 3)
  BENCH_PATH=/widget/lights   the path PATCHed; /activity/order sends the activity body
`;
const { positionals } = commandLine(usage);
if (positionals.length === 0 || positionals.length % 2 !== 0) {
  console.error(usage.trim());
  process.exit(2);
}

pinLoadGenerator(import.meta.url);

const pairs = [];
for (let i = 0; i < positionals.length; i += 2) pairs.push([positionals[i], positionals[i + 1]]);
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
