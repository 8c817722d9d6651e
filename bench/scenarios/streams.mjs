import { openStreams } from '../lib/sse-clients.mjs';
import { runPressLoad } from '../lib/press-load.mjs';
import { startServer } from '../lib/process.mjs';
import { median, percentile, round } from '../lib/stats.mjs';

const KiB = 1024;
const STREAMS_PER_ACCOUNT = 4;
let loopbackHost = 2;
/** A fresh loopback source address per batch of connections (no TIME_WAIT exhaustion). */
const nextSource = () => `127.0.0.${(loopbackHost++ % 250) + 2}`;

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
    return {
      streams: count,
      rssPerStreamKiB: (after.memory.rss - before.memory.rss) / count / KiB,
      heapPerStreamKiB: (after.memory.heapUsed - before.memory.heapUsed) / count / KiB,
    };
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

/** One press-load run on a fresh server of `kind`. */
async function pressRun(kind, accounts, rate, seconds, warmupSeconds) {
  const server = await servers[kind === 'tilecast' ? 'tilecast' : 'baseline'](accounts);
  try {
    const result = await runPressLoad({ server, kind, accounts, rate, seconds, warmupSeconds, localAddress: nextSource() });
    if (result.refused > 0) throw new Error(`${kind}: ${result.refused} presses refused`);
    return { ...result, p50: percentile(result.latencies, 50), p99: percentile(result.latencies, 99), cpuPerDelivery: result.cpuMicros / result.deliveries };
  } finally {
    await server.stop();
  }
}

export const s2 = {
  id: 'S2',
  title: '10,000 open streams, 1,000 presses/s across the accounts: press-to-stream latency and CPU per event',
  async run({ quick }) {
    const accounts = quick ? 250 : 2500;
    const rate = quick ? 200 : 1000;
    // 30 s windows: each server's major GCs fall in every window, not by chance.
    const seconds = quick ? 3 : 30;
    const scalingSeconds = quick ? 3 : 10;
    const runs = quick ? 1 : 3;
    // Unmeasured presses first: the measured window sees a compiled press path.
    const warmup = quick ? 1 : 5;
    const samples = { baseline: [], tilecast: [] };
    for (let i = 0; i < runs; i++) {
      samples.baseline.push(await pressRun('baseline', accounts, rate, seconds, warmup));
      samples.tilecast.push(await pressRun('tilecast', accounts, rate, seconds, warmup));
    }
    // Cost per event must not depend on how many other streams are open: the same press
    // rate with a fifth of the streams.
    // Alternating runs and medians, as for the other checks: one run each is too noisy.
    const fewAccounts = Math.max(50, accounts / 5);
    const scalingRate = Math.min(rate, fewAccounts * 0.8);
    const scalingRuns = { few: [], many: [] };
    for (let i = 0; i < runs; i++) {
      scalingRuns.few.push(await pressRun('tilecast', fewAccounts, scalingRate, scalingSeconds, warmup));
      scalingRuns.many.push(await pressRun('tilecast', accounts, scalingRate, scalingSeconds, warmup));
    }
    const few = { cpuPerDelivery: median(scalingRuns.few.map((r) => r.cpuPerDelivery)) };
    const many = { cpuPerDelivery: median(scalingRuns.many.map((r) => r.cpuPerDelivery)) };
    const m = (kind, key) => median(samples[kind].map((s) => s[key]));
    const p99Ratio = m('tilecast', 'p99') / m('baseline', 'p99');
    const cpuRatio = m('tilecast', 'cpuPerDelivery') / m('baseline', 'cpuPerDelivery');
    const scaling = many.cpuPerDelivery / few.cpuPerDelivery;
    const lost = samples.tilecast.reduce((sum, s) => sum + (s.expected - s.deliveries), 0);
    return {
      figures: {
        streams: accounts * STREAMS_PER_ACCOUNT,
        'presses/s': rate,
        'baseline p50 / p99 ms': `${round(m('baseline', 'p50'), 2)} / ${round(m('baseline', 'p99'), 2)}`,
        'tilecast p50 / p99 ms': `${round(m('tilecast', 'p50'), 2)} / ${round(m('tilecast', 'p99'), 2)}`,
        'baseline CPU µs/delivered event': round(m('baseline', 'cpuPerDelivery'), 2),
        'tilecast CPU µs/delivered event': round(m('tilecast', 'cpuPerDelivery'), 2),
        [`tilecast CPU µs/event, ${fewAccounts * STREAMS_PER_ACCOUNT} vs ${accounts * STREAMS_PER_ACCOUNT} streams`]: `${round(few.cpuPerDelivery, 2)} vs ${round(many.cpuPerDelivery, 2)}`,
      },
      checks: [
        { name: 'every event delivered', value: `${lost} lost`, target: '0 lost', pass: lost === 0 },
        { name: 'p99 latency vs baseline', value: `${round(p99Ratio, 2)}×`, target: '<= 1.3×', pass: p99Ratio <= 1.3 },
        { name: 'CPU per event vs baseline', value: `${round(cpuRatio, 2)}×`, target: '<= 1.3×', pass: cpuRatio <= 1.3 },
        { name: 'CPU per event, 5× the streams', value: `${round(scaling, 2)}×`, target: '<= 1.2×', pass: scaling <= 1.2 },
      ],
      raw: { samples: Object.fromEntries(Object.entries(samples).map(([k, list]) => [k, list.map(({ latencies, ...rest }) => rest)])) },
    };
  },
};

/**
 * S4 run: 10,000 events flood account 0 while 99 other accounts each hold a stream
 * whose latency is sampled; account 0's stream has a client that stopped reading
 * (`slowReader`) or, for the baseline, one that keeps reading. Returns peak server memory over the start, latencies and what the
 * slow stream saw.
 */
async function floodRun({ slowReader, events, padding }) {
  const others = 99;
  const server = await servers.tilecast(others + 1);
  const localAddress = nextSource();
  const sentAt = new Map();
  const latencies = { before: [], during: [] };
  let phase = 'before';
  let slowEvents = 0;
  try {
    const probes = await openStreams({
      port: server.port,
      count: others,
      path: '/events',
      headersFor: (i) => ({ authorization: `Token tok_bench_${i + 1}` }),
      localAddress,
      onData: (_i, data, now) => {
        const id = /"id":"([^"]+)"/.exec(data)?.[1];
        const start = id && sentAt.get(id);
        if (start !== undefined) latencies[phase].push(now - start);
      },
    });
    // The flooded account's stream: stalled, or (the baseline) a client that keeps reading.
    const slow = await openStreams({
      port: server.port,
      count: 1,
      path: '/events',
      headersFor: () => ({ authorization: 'Token tok_bench_0' }),
      localAddress,
      onData: () => slowEvents++,
    });
    if (slowReader) slow.stall(0);
    let probeSeq = 0;
    const probe = async () => {
      const account = `bench-${(probeSeq % others) + 1}`;
      const id = `${account}-probe-${probeSeq++}`;
      sentAt.set(id, performance.now());
      await server.ask({ type: 'inject', account, count: 1, padding: '', eventId: id }, 'injected');
    };
    for (let i = 0; i < 200; i++) await probe();
    const before = await server.stats();
    phase = 'during';
    let peak = 0;
    const sampler = setInterval(() => void server.stats().then((s) => (peak = Math.max(peak, memoryOf(s.memory)))), 50);
    const flood = server.ask({ type: 'inject', account: 'bench-0', count: events, padding: 'x'.repeat(padding) }, 'injected');
    let done = false;
    void flood.then(() => (done = true));
    while (!done) await probe();
    for (let i = 0; i < 100; i++) await probe();
    clearInterval(sampler);
    const after = await server.stats();
    peak = Math.max(peak, memoryOf(after.memory));
    let slowEnded = slow.ended.has(0);
    if (slowReader) {
      slow.sockets[0].resume();
      const deadline = Date.now() + 10_000;
      while (!slow.ended.has(0) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      slowEnded = slow.ended.has(0);
    }
    slow.close();
    probes.close();
    return { peakOverStartMiB: (peak - memoryOf(before.memory)) / 2 ** 20, latencies, slowEnded, slowEvents };
  } finally {
    await server.stop();
  }
}

/** Heap and off-heap buffers (queued socket writes are Buffers outside the heap). */
const memoryOf = (memory) => memory.heapUsed + memory.external + memory.arrayBuffers;

export const s4 = {
  id: 'S4',
  title: 'a stream whose client stops reading while 10,000 events are published to its account',
  async run({ quick }) {
    const events = quick ? 3_000 : 10_000;
    // 10,000 events of about 1 KiB: more than the kernel's socket buffers on loopback can hold
    // (the send buffer grows to 4 MiB here), so the server itself must queue, and cut off.
    const padding = quick ? 4000 : 1000; // quick: fewer events, so larger ones
    const flood = await floodRun({ slowReader: false, events, padding });
    const stalled = await floodRun({ slowReader: true, events, padding });
    const extraMiB = stalled.peakOverStartMiB - flood.peakOverStartMiB;
    const p99 = (list) => percentile(list, 99);
    const latencyRatio = p99(stalled.latencies.during) / p99(flood.latencies.during);
    return {
      figures: {
        'events published': events,
        'peak memory, reading client (MiB)': round(flood.peakOverStartMiB, 2),
        'peak memory, stalled client (MiB)': round(stalled.peakOverStartMiB, 2),
        'events the stalled reader got': stalled.slowEvents,
        'other streams p99 ms (reading / stalled)': `${round(p99(flood.latencies.during), 2)} / ${round(p99(stalled.latencies.during), 2)}`,
      },
      checks: [
        { name: 'memory for the stalled stream', value: `${round(extraMiB, 2)} MiB`, target: '<= 1 MiB over baseline', pass: extraMiB <= 1 },
        { name: 'stalled stream ended', value: String(stalled.slowEnded), target: 'true', pass: stalled.slowEnded === true },
        { name: 'other streams p99', value: `${round(latencyRatio, 2)}×`, target: '<= 1.3× (reading client)', pass: latencyRatio <= 1.3 },
      ],
    };
  },
};
