// `node bench/profile-presses.mjs [baseline|tilecast] [accounts] [rate] [seconds]`: runs the
// S2 press load against one server with --cpu-prof (diagnostic; profile in /tmp/tilecast-prof).
import { rmSync } from 'node:fs';
import { runPressLoad } from '../lib/press-load.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';
import { percentile } from '../lib/stats.mjs';

pinLoadGenerator(import.meta.url);

const [kind = 'tilecast', accounts = '2500', rate = '1000', seconds = '10'] = process.argv.slice(2);
const dir = '/tmp/tilecast-prof';
rmSync(dir, { recursive: true, force: true });
const script = kind === 'baseline' ? 'baselines/sse-node-http.mjs' : 'servers/tilecast-streams.mjs';
// NO_PROF=1: no profiler, for the per-thread CPU table alone.
const nodeArgs = [...(process.env.NO_PROF ? [] : ['--cpu-prof', `--cpu-prof-dir=${dir}`]), ...(process.env.NODE_ARGS?.split(' ') ?? [])];
const server = await startServer(script, { args: [accounts], nodeArgs });
const result = await runPressLoad({ server, kind, accounts: Number(accounts), rate: Number(rate), seconds: Number(seconds), localAddress: `127.0.0.${100 + Math.floor(Math.random() * 150)}` });
const p = (q) => percentile(result.latencies, q).toFixed(2);
console.log({ deliveries: result.deliveries, expected: result.expected, cpuPerDelivery: result.cpuMicros / result.deliveries, p50: p(50), p99: p(99), max: p(100) });
console.table(result.threads); // ms of CPU per thread over the load window
await server.stop();
