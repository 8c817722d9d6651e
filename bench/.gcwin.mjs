import { runPressLoad } from './lib/press-load.mjs';
import { startServer } from './lib/process.mjs';
import { percentile } from './lib/stats.mjs';
const [kind = 'tilecast', seconds = '30', forced = '1'] = process.argv.slice(2);
const script = kind === 'baseline' ? 'baselines/sse-node-http.mjs' : 'servers/tilecast-streams.mjs';
const server = await startServer(script, { args: ['2500'], nodeArgs: ['--trace-gc'] });
if (forced === '1') { const orig = server.cpu; let n = 0; server.forceGcBeforeWarmup = true; }
const result = await runPressLoad({ server, kind, accounts: 2500, rate: 1000, seconds: Number(seconds), warmupSeconds: 5, localAddress: `127.0.0.${100 + Math.floor(Math.random() * 150)}`, forcedGc: forced === '1' });
console.error(kind, 'p50', percentile(result.latencies, 50).toFixed(2), 'p99', percentile(result.latencies, 99).toFixed(2), 'cpu/del', (result.cpuMicros / result.deliveries).toFixed(1));
await server.stop();
