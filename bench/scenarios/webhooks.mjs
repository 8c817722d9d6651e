import { send } from '../lib/http.mjs';
import { hammer } from '../lib/load.mjs';
import { widgetBody } from '../lib/payloads.mjs';
import { pressRequest } from '../lib/press-load.mjs';
import { startServer } from '../lib/process.mjs';
import { WARMUP_SECONDS } from '../lib/throughput.mjs';
import { median, percentile, round } from '../lib/stats.mjs';
import { certificates, startReceiver, webhookEnv } from '../lib/webhook-receiver.mjs';

async function webhookRun(kind, tls, { accounts, rate, seconds }) {
  const sentAt = new Map();
  const latencies = [];
  const receiver = await startReceiver(tls, (requestId, now) => {
    const start = sentAt.get(requestId);
    if (start !== undefined) latencies.push(now - start);
  });
  const env = webhookEnv(tls);
  const server =
    kind === 'tilecast'
      ? await startServer('servers/tilecast-streams.mjs', { args: [String(accounts)], env })
      : await startServer('baselines/webhook-forwarder.mjs', { env });
  try {
    // One second of warm-up (connections, JIT) is sent first and not measured.
    const warmup = rate;
    const total = rate * seconds + warmup;
    const pending = [];
    let refused = 0;
    for (let i = 0; i < total; i++) {
      const n = i % accounts;
      const requestId = `w${i}`;
      const { path, headers, body } = pressRequest[kind](n, requestId);
      if (i >= warmup) sentAt.set(requestId, performance.now());
      pending.push(send('POST', server.port, path, headers, body).then((status) => status === 202 || refused++));
      await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
    }
    await Promise.all(pending);
    const deadline = Date.now() + 5_000;
    while (latencies.length < total - warmup && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (refused > 0) throw new Error(`${kind}: ${refused} presses refused`);
    return { latencies, lost: total - warmup - latencies.length };
  } finally {
    await server.stop();
    await receiver.close();
  }
}

/**
 * Does webhook delivery slow the publisher API down? `PATCH /widget` throughput of the
 * bare publisher alone and while it forwards 100 presses per second as webhooks (the W1
 * baseline's server, which also serves P1's bare route), and of one Tilecast server alone
 * and under the same presses: measured in turn, `runs` times each, and compared by their
 * medians (validation is in the path, so several runs, as for P1). Each run has new
 * server processes, for the reason given in `lib/throughput.mjs`.
 */
async function publishUnderWebhooks(tls, { accounts, rate, seconds, runs }) {
  const env = webhookEnv(tls);
  const publish = (server, headers, duration = seconds) =>
    hammer({ url: `${server.url}/widget/panel`, headers: { 'content-type': 'application/json', ...headers }, body: widgetBody(), duration });
  const receiver = await startReceiver(tls, () => {});
  const owner = { authorization: 'Token tok_bench_0' };
  const busy = async (target, work) => {
    const before = await target.cpu();
    const started = performance.now();
    const result = await work();
    const after = await target.cpu();
    return { ...result, serverCpu: (after - before) / 1000 / (performance.now() - started) };
  };
  let i = 0;
  const underPresses = async (server, kind, work) => {
    let pressing = true;
    const presses = (async () => {
      while (pressing) {
        const { path, headers, body } = pressRequest[kind](1 + (i % (accounts - 1)), `p${i++}`); // account 0 is the publisher's
        void send('POST', server.port, path, headers, body).catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
      }
    })();
    try {
      return await work();
    } finally {
      pressing = false;
      await presses;
    }
  };
  const samples = { bare: [], bareLoaded: [], alone: [], loaded: [] };
  try {
    for (let run = 0; run < runs; run++) {
      const bare = await startServer('baselines/webhook-forwarder.mjs', { env });
      const server = await startServer('servers/tilecast-streams.mjs', { args: [String(accounts)], env });
      try {
        await publish(bare, {}, WARMUP_SECONDS); // JIT, connections
        await publish(server, owner, WARMUP_SECONDS);
        // the delivery paths, and the receiver's connections
        await underPresses(bare, 'baseline', () => publish(bare, {}, 1));
        await underPresses(server, 'tilecast', () => publish(server, owner, 1));
        samples.bare.push(await busy(bare, () => publish(bare, {})));
        samples.bareLoaded.push(await busy(bare, () => underPresses(bare, 'baseline', () => publish(bare, {}))));
        samples.alone.push(await busy(server, () => publish(server, owner)));
        samples.loaded.push(await busy(server, () => underPresses(server, 'tilecast', () => publish(server, owner))));
      } finally {
        await server.stop();
        await bare.stop();
      }
    }
    const rateOf = (list) => median(list.map((sample) => sample.requestsPerSecond));
    const cpuOf = (list) => median(list.map((sample) => sample.serverCpu));
    return {
      bareRate: rateOf(samples.bare),
      bareLoaded: rateOf(samples.bareLoaded),
      alone: rateOf(samples.alone),
      loaded: rateOf(samples.loaded),
      presses: i,
      handshakes: receiver.handshakes(),
      serverCpuAlone: cpuOf(samples.alone),
      serverCpuLoaded: cpuOf(samples.loaded),
    };
  } finally {
    await receiver.close();
  }
}

export const w1 = {
  id: 'W1',
  title: 'press → signed webhook at a local HTTPS receiver on port 443, 100 presses per second',
  async run({ quick }) {
    const tls = certificates();
    const load = { accounts: 200, rate: 100, seconds: quick ? 3 : 10 };
    const baseline = await webhookRun('baseline', tls, load);
    const tilecast = await webhookRun('tilecast', tls, load);
    const publishing = await publishUnderWebhooks(tls, { ...load, seconds: quick ? 2 : 5, runs: quick ? 1 : 5 });
    const isolation = publishing.loaded / publishing.alone;
    const versusBare = publishing.loaded / publishing.bareRate;
    const versusBareLoaded = publishing.loaded / publishing.bareLoaded;
    const bareIsolation = publishing.bareLoaded / publishing.bareRate;
    const p99 = (run) => percentile(run.latencies, 99);
    const limit = 1.5 * p99(baseline) + 2;
    return {
      figures: {
        'baseline p50 / p99 ms': `${round(percentile(baseline.latencies, 50), 2)} / ${round(p99(baseline), 2)}`,
        'tilecast p50 / p99 ms': `${round(percentile(tilecast.latencies, 50), 2)} / ${round(p99(tilecast), 2)}`,
        'tilecast p90 / p95 / max ms': `${round(percentile(tilecast.latencies, 90), 2)} / ${round(percentile(tilecast.latencies, 95), 2)} / ${round(percentile(tilecast.latencies, 100), 2)}`,
        'PATCH req/s, bare: alone / under W1': `${round(publishing.bareRate, 0)} / ${round(publishing.bareLoaded, 0)} (${round(bareIsolation * 100, 1)} %)`,
        'PATCH req/s, tilecast: alone / under W1': `${round(publishing.alone, 0)} / ${round(publishing.loaded, 0)}`,
        'presses (both servers) / TLS handshakes under W1': `${publishing.presses} / ${publishing.handshakes}`,
        'server CPU busy: alone / under W1': `${round(publishing.serverCpuAlone * 100, 0)} % / ${round(publishing.serverCpuLoaded * 100, 0)} %`,
      },
      checks: [
        { name: 'every press delivered', value: `${tilecast.lost} lost`, target: '0 lost', pass: tilecast.lost === 0 },
        {
          name: 'p99 latency',
          value: `${round(p99(tilecast), 2)} ms`,
          target: `<= 1.5× baseline + 2 ms (${round(limit, 2)} ms)`,
          pass: p99(tilecast) <= limit,
        },
        { name: 'P1 under W1 vs P1 alone', value: `${round(isolation * 100, 1)} %`, target: '>= 85 %', pass: isolation >= 0.85 },
        { name: 'P1 under W1 vs bare baseline under W1', value: `${round(versusBareLoaded * 100, 1)} %`, target: '>= 85 %', pass: versusBareLoaded >= 0.85 },
        { name: 'P1 under W1 vs bare baseline alone', value: `${round(versusBare * 100, 1)} %`, target: '>= 85 %', pass: versusBare >= 0.85 },
      ],
    };
  },
};
