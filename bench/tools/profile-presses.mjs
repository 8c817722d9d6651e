// Diagnostic: one server under the S2 press load, with a CPU profile and CPU per thread.
import { commandLine, outputDirectory } from '../lib/cli.mjs';
import { runPressLoad } from '../lib/press-load.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';
import { percentile } from '../lib/stats.mjs';

const usage = `
Usage: node bench/tools/profile-presses.mjs [--out DIR] [baseline|tilecast] [accounts] [rate] [seconds]

Runs the S2 press load against one server (accounts x 4 open GET /events streams, rate
presses a second round-robin over the accounts, 5 s of warm-up, then seconds measured)
with node --cpu-prof. Prints deliveries, server CPU per delivered event, latency
p50/p99/max (ms) and the CPU (ms) of each server thread over the measured window.

  baseline|tilecast   which server (default tilecast)
  accounts            accounts, 4 streams each (default 2500)
  rate                presses per second (default 1000)
  seconds             measured seconds (default 10)
  --out DIR           where the .cpuprofile goes (default: a new directory under the
                      system's temporary directory; its path is printed)

Environment:
  NO_PROF=1           no profiler (for the per-thread CPU table alone)
  NODE_ARGS='...'     extra node flags for the server, e.g. NODE_ARGS='--trace-gc'
`;
const { positionals, values } = commandLine(usage, { out: { type: 'string' } });
const [kind = 'tilecast', accounts = '2500', rate = '1000', seconds = '10'] = positionals;
if (kind !== 'baseline' && kind !== 'tilecast') {
  console.error(usage.trim());
  process.exit(2);
}

pinLoadGenerator(import.meta.url);

const script = kind === 'baseline' ? 'baselines/sse-node-http.mjs' : 'servers/tilecast-streams.mjs';
const dir = process.env.NO_PROF ? undefined : outputDirectory(values.out, 'tilecast-prof');
const nodeArgs = [...(dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : []), ...(process.env.NODE_ARGS?.split(' ').filter(Boolean) ?? [])];
const server = await startServer(script, { args: [accounts], nodeArgs });
const result = await runPressLoad({
  server,
  kind,
  accounts: Number(accounts),
  rate: Number(rate),
  seconds: Number(seconds),
  localAddress: `127.0.0.${100 + Math.floor(Math.random() * 150)}`,
});
const p = (q) => percentile(result.latencies, q).toFixed(2);
console.log({
  deliveries: result.deliveries,
  expected: result.expected,
  cpuPerDelivery: result.cpuMicros / result.deliveries,
  p50: p(50),
  p99: p(99),
  max: p(100),
});
console.table(result.threads); // ms of CPU per thread over the load window
await server.stop();
if (dir) console.log(`profile in ${dir}`);
