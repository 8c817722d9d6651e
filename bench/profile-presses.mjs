// `node bench/profile-presses.mjs [baseline|tilecast] [accounts] [rate] [seconds]`: runs the
// S2 press load against one server with --cpu-prof (diagnostic; profile in /tmp/tilecast-prof).
import { rmSync } from 'node:fs';
import { runPressLoad } from './lib/press-load.mjs';
import { startServer } from './lib/process.mjs';

const [kind = 'tilecast', accounts = '2500', rate = '1000', seconds = '10'] = process.argv.slice(2);
const dir = '/tmp/tilecast-prof';
rmSync(dir, { recursive: true, force: true });
const script = kind === 'baseline' ? 'baselines/sse-node-http.mjs' : 'servers/tilecast-streams.mjs';
const server = await startServer(script, { args: [accounts], nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${dir}`] });
const result = await runPressLoad({ server, kind, accounts: Number(accounts), rate: Number(rate), seconds: Number(seconds), localAddress: '127.0.0.99' });
console.log({ deliveries: result.deliveries, expected: result.expected, cpuPerDelivery: result.cpuMicros / result.deliveries });
await server.stop();
