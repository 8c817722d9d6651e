import { send } from '../lib/http.mjs';
import { openStreams } from '../lib/sse-clients.mjs';
import { startServer } from '../lib/process.mjs';
import { median, percentile, round } from '../lib/stats.mjs';

const DEVICES = 1000;
let source = 100;

const content = (seq) => ({ template: 'switchboard', title: `seq-${seq}`, actions: [{ id: 'go', label: 'Go', kind: 'button' }] });

/** Holds 1,000 device streams, sends 10 PATCHes per second, and times every push received. */
async function broadcastRun(kind, seconds) {
  const server =
    kind === 'tilecast'
      ? await startServer('servers/tilecast-streams.mjs', { args: ['1', String(DEVICES)] })
      : await startServer('baselines/broadcast-node-http.mjs');
  const sentAt = new Map();
  const received = Array.from({ length: DEVICES }, () => []);
  const latencies = [];
  try {
    const streams = await openStreams({
      port: server.port,
      count: DEVICES,
      path: '/device/stream',
      headersFor: (i) => (kind === 'tilecast' ? { authorization: `Device dev_s3_${i}` } : {}),
      localAddress: `127.0.1.${(source++ % 250) + 1}`,
      onData: (i, data, now) => {
        const seq = /"title":"seq-(\d+)"/.exec(data)?.[1];
        if (seq === undefined) return;
        received[i].push(Number(seq));
        latencies.push(now - sentAt.get(Number(seq)));
      },
    });
    const headers = kind === 'tilecast' ? { authorization: 'Token tok_bench_0' } : {};
    const total = seconds * 10;
    for (let seq = 0; seq < total; seq++) {
      sentAt.set(seq, performance.now());
      const status = await send('PATCH', server.port, '/widget/panel', headers, JSON.stringify({ content: content(seq) }));
      if (status !== 200) throw new Error(`${kind}: PATCH answered ${status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await new Promise((resolve) => setTimeout(resolve, 2500)); // the last trailing push
    streams.close();
    const last = total - 1;
    return {
      latencies,
      // A newer update restarts its delivery job from the first device
      // (docs/contract/durable-delivery.md#durable-supersede): devices reached before it get
      // both, the others only the newer one. What every device must see is the updates in
      // order, ending on the latest.
      inOrder: received.every((list) => list.every((seq, i) => i === 0 || seq > list[i - 1])),
      allGotLast: received.every((list) => list.at(-1) === last),
      pushesPerDevice: median(received.map((list) => list.length)),
    };
  } finally {
    await server.stop();
  }
}

export const s3 = {
  id: 'S3',
  title: 'one widget on 1,000 devices (reference device stream), 10 PATCHes per second',
  async run({ quick }) {
    const seconds = quick ? 4 : 10;
    const baseline = await broadcastRun('baseline', seconds);
    const tilecast = await broadcastRun('tilecast', seconds);
    const p99 = (run) => percentile(run.latencies, 99);
    const ratio = p99(tilecast) / p99(baseline);
    return {
      figures: {
        'pushes per device (baseline / tilecast)': `${baseline.pushesPerDevice} / ${tilecast.pushesPerDevice}`,
        'baseline p50 / p99 ms': `${round(percentile(baseline.latencies, 50), 1)} / ${round(p99(baseline), 1)}`,
        'tilecast p50 / p99 ms': `${round(percentile(tilecast.latencies, 50), 1)} / ${round(p99(tilecast), 1)}`,
      },
      checks: [
        { name: "every device's pushes in order", value: String(tilecast.inOrder), target: 'true', pass: tilecast.inOrder },
        { name: 'every device got the latest', value: String(tilecast.allGotLast), target: 'true', pass: tilecast.allGotLast },
        { name: 'p99 latency vs baseline', value: `${round(ratio, 2)}×`, target: '<= 1.3×', pass: ratio <= 1.3 },
      ],
    };
  },
};
