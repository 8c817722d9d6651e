import { createPoster, openStreams } from '../lib/sse-clients.mjs';
import { startServer } from '../lib/process.mjs';
import { median, percentile, round } from '../lib/stats.mjs';

const KiB = 1024;
const STREAMS_PER_ACCOUNT = 4;
let loopbackHost = 2;
/** A fresh loopback source address per batch of connections (no TIME_WAIT exhaustion). */
const nextSource = () => `127.0.0.${loopbackHost++ % 250 + 2}`;

const servers = {
  baseline: (accounts) => startServer('baselines/sse-node-http.mjs', { args: [String(accounts)] }),
  tilecast: (accounts) => startServer('servers/tilecast-streams.mjs', { args: [String(accounts)] }),
};

/** Opens `accounts × 4` idle streams and measures the server's resident memory per stream. */
async function idleStreamMemory(which, accounts) {
  const server = await servers[which](accounts);
  try {
    const before = await server.stats();
    const count = accounts * STREAMS_PER_ACCOUNT;
    const streams = await openStreams({
      port: server.port,
      count,
      path: '/events',
      headersFor: (i) => ({ authorization: `Token tok_bench_${Math.floor(i / STREAMS_PER_ACCOUNT)}` }),
      localAddress: nextSource(),
    });
    if (streams.opened() !== count) throw new Error(`${which}: only ${streams.opened()} of ${count} streams opened`);
    await new Promise((resolve) => setTimeout(resolve, 500)); // let the server settle
    const after = await server.stats();
    streams.close();
    return { streams: count, rssPerStreamKiB: (after.memory.rss - before.memory.rss) / count / KiB, heapPerStreamKiB: (after.memory.heapUsed - before.memory.heapUsed) / count / KiB };
  } finally {
    await server.stop();
  }
}

export const s1 = {
  id: 'S1',
  title: '10,000 idle GET /events streams (2,500 accounts × 4): server memory per stream',
  async run({ quick }) {
    const accounts = quick ? 250 : 2500;
    const baseline = await idleStreamMemory('baseline', accounts);
    const tilecast = await idleStreamMemory('tilecast', accounts);
    const ratio = tilecast.rssPerStreamKiB / baseline.rssPerStreamKiB;
    return {
      figures: {
        streams: tilecast.streams,
        'baseline KiB/stream (RSS)': round(baseline.rssPerStreamKiB, 2),
        'tilecast KiB/stream (RSS)': round(tilecast.rssPerStreamKiB, 2),
        'baseline KiB/stream (heap)': round(baseline.heapPerStreamKiB, 2),
        'tilecast KiB/stream (heap)': round(tilecast.heapPerStreamKiB, 2),
      },
      checks: [
        { name: 'memory per stream', value: `${round(tilecast.rssPerStreamKiB, 2)} KiB`, target: '<= 16 KiB', pass: tilecast.rssPerStreamKiB <= 16 },
        { name: 'memory vs baseline', value: `${round(ratio, 2)}×`, target: '<= 1.4×', pass: ratio <= 1.4 },
      ],
      raw: { baseline, tilecast },
    };
  },
};
