// F1: Android phones through FCM (docs/contract/android-fcm.md), against transport-fcm's test
// double, placed as A1's processes are (scenarios/apns.mjs): the measured sender (Tilecast
// with transport-fcm, or the bare node:http2 client) alone on the server core; the double,
// which both senders push to, on the load core, niced. Its CPU busy share is reported (near
// 100 % it would be the bottleneck and hide the senders' difference).
// F2: a mixed fleet, iPhones and Android phones, through transport-apns and transport-fcm at
// once (Tilecast alone on the server core, both doubles on the load core, niced), and the
// PATCH latency of another account during its fan-outs against without, as A1's.
import { senderEnv as apnsSenderEnv, signingKeys } from '../lib/apns-fleet.mjs';
import { publishHeaders, send } from '../lib/http.mjs';
import { F1_DEVICES, F2_APNS_DEVICES, F2_FCM_DEVICES, senderEnv, serviceAccount } from '../lib/fcm-fleet.mjs';
import { widgetBody } from '../lib/payloads.mjs';
import { HELPER_CPUS, startServer } from '../lib/process.mjs';
import { percentile, round } from '../lib/stats.mjs';
import { LATENCY_ROUNDS, PATCH_RATE, compareSenders, fanOut, senderFigures, startDouble as startApnsDouble, summarise } from './apns.mjs';

const pct = (ratio) => `${round(ratio * 100, 1)} %`;
const READY_MS = 180_000;

/** The double, in its own process on the load core (niced, as A1's). */
function startDouble(account) {
  return startServer('servers/fcm-double.mjs', {
    env: { BENCH_FCM_PUBLIC_KEY: account.publicKey, BENCH_FCM_CLIENT_EMAIL: account.serviceAccount.client_email },
    cpu: HELPER_CPUS,
    launcher: ['nice', '-n', '10'],
  });
}

/** A sender: `bare` (the baseline) or `tilecast`. */
function startSender(kind, double, account) {
  const script = kind === 'bare' ? 'baselines/fcm-node-http.mjs' : 'servers/tilecast-fcm.mjs';
  const thread = process.env.BENCH_FCM_CONNECTION_THREAD;
  return startServer(script, { env: { ...senderEnv(double, account), ...(thread ? { BENCH_FCM_CONNECTION_THREAD: thread } : {}) }, readyTimeoutMs: READY_MS });
}

const patchOk = async (port, path, headers, body) => {
  const status = await send('PATCH', port, path, headers, body);
  if (status !== 200) throw new Error(`PATCH ${path} answered ${status}`);
};

export const f1 = {
  id: 'F1',
  title: `one widget update fanned out to ${F1_DEVICES} Android devices (FCM data messages) through transport-fcm to its test double, vs a bare node:http2 client`,
  async run({ quick }) {
    const account = serviceAccount();
    const double = await startDouble(account);
    try {
      const widgets = new Map();
      const samples = await compareSenders({
        runs: quick ? 1 : 3,
        warmups: 2,
        measured: quick ? 1 : 3,
        start: (kind) => startSender(kind, double, account),
        fan: (sender) => {
          const slug = `panel-${(widgets.get(sender) ?? 0) % 64}`;
          widgets.set(sender, (widgets.get(sender) ?? 0) + 1);
          return fanOut(sender, double, F1_DEVICES, () => patchOk(sender.port, `/widget/${slug}`, publishHeaders(sender), widgetBody()));
        },
      });
      const b = summarise(samples.bare);
      const t = summarise(samples.tilecast);
      const ratio = t.pushesPerSecond / b.pushesPerSecond;
      return {
        figures: senderFigures(b, t, samples, 'transport-fcm'),
        checks: [{ name: 'pushes/s vs bare client', value: pct(ratio), target: '>= 80.0 %', pass: ratio >= 0.8 }],
        raw: { samples },
      };
    } finally {
      await double.stop();
    }
  },
};

/**
 * One F2 fan-out: `trigger` (the PATCH of a widget every phone shows), then the pushes of
 * both transports awaited at the sender, and checked at both doubles: every iPhone's push
 * at the APNs double and every Android phone's message at the FCM double, all accepted.
 */
async function mixedFanOut(sender, doubles, trigger) {
  const total = F2_APNS_DEVICES + F2_FCM_DEVICES;
  await Promise.all([doubles.apns.ask({ type: 'reset' }, 'reset'), doubles.fcm.ask({ type: 'reset' }, 'reset')]);
  sender.pushed = (sender.pushed ?? 0) + total;
  const done = sender.ask({ type: 'await-pushes', total: sender.pushed }, 'pushes-done', 300_000);
  const started = performance.now();
  await trigger();
  await done;
  const ms = performance.now() - started;
  const [apns, fcm] = await Promise.all([doubles.apns.ask({ type: 'summary' }, 'summary'), doubles.fcm.ask({ type: 'summary' }, 'summary')]);
  for (const [name, summary, expected] of [
    ['APNs', apns, F2_APNS_DEVICES],
    ['FCM', fcm, F2_FCM_DEVICES],
  ]) {
    if (summary.received !== expected || summary.statuses[200] !== expected) {
      throw new Error(`expected ${expected} pushes accepted at the ${name} double, it got ${JSON.stringify(summary)}`);
    }
  }
  return { ms, pushesPerSecond: total / (ms / 1000) };
}

/**
 * F2's latency phases, as A1's (scenarios/apns.mjs `patchLatency`): PATCHes of account
 * `quiet`'s widget at PATCH_RATE while fan-outs and quiet windows of the same length
 * alternate `rounds` times; answers the latencies of each phase and the fan-outs.
 */
async function mixedLatency(sender, doubles, rounds) {
  const quiet = { headers: { 'content-type': 'application/json', authorization: 'Token tok_quiet' }, body: widgetBody() };
  const latencies = { alone: [], fanOut: [] };
  const fanOuts = [];
  let phase = null;
  let sending = true;
  const load = (async () => {
    const pending = [];
    while (sending) {
      const bucket = phase;
      const started = performance.now();
      pending.push(
        patchOk(sender.port, '/widget/load', quiet.headers, quiet.body).then(() => {
          if (bucket !== null && phase === bucket) latencies[bucket].push(performance.now() - started);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000 / PATCH_RATE));
    }
    await Promise.all(pending);
  })();
  try {
    let widget = 0;
    const fan = () => mixedFanOut(sender, doubles, () => patchOk(sender.port, `/widget/panel-${widget++ % 64}`, publishHeaders(sender), widgetBody()));
    await fan(); // warm-up (and the first access token), unmeasured
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (let round = 0; round < rounds; round++) {
      phase = 'fanOut';
      const sample = await fan();
      fanOuts.push(sample);
      phase = null;
      await new Promise((resolve) => setTimeout(resolve, 200));
      phase = 'alone';
      await new Promise((resolve) => setTimeout(resolve, Math.max(sample.ms, 1000)));
      phase = null;
    }
  } finally {
    sending = false;
    await load;
  }
  return { latencies, fanOuts };
}

export const f2 = {
  id: 'F2',
  title: `a mixed fleet (${F2_APNS_DEVICES} iPhones + ${F2_FCM_DEVICES} Android phones): one widget update through transport-apns and transport-fcm at once, every push at both doubles; PATCH p99 during the fan-out vs without`,
  async run({ quick }) {
    const keys = signingKeys();
    const account = serviceAccount();
    const [apnsDouble, fcmDouble] = await Promise.all([startApnsDouble(keys), startDouble(account)]);
    const doubles = { apns: apnsDouble, fcm: fcmDouble };
    try {
      const sender = await startServer('servers/tilecast-mixed.mjs', {
        env: { ...apnsSenderEnv(apnsDouble, keys), ...senderEnv(fcmDouble, account) },
        readyTimeoutMs: READY_MS,
      });
      let result;
      try {
        result = await mixedLatency(sender, doubles, quick ? 2 : LATENCY_ROUNDS);
        result.counters = (await sender.ask({ type: 'counters' }, 'counters')).counters;
      } finally {
        await sender.stop();
      }
      const { latencies, fanOuts } = result;
      const p99Alone = percentile(latencies.alone, 99);
      const p99FanOut = percentile(latencies.fanOut, 99);
      const pushesPerSecond = fanOuts.map((sample) => sample.pushesPerSecond).sort((a, b) => a - b)[Math.floor(fanOuts.length / 2)];
      return {
        figures: {
          'pushes/s (both transports, median fan-out)': round(pushesPerSecond, 0),
          'fan-outs measured (each: every push accepted at both doubles)': fanOuts.length,
          'PATCH p50 / p99 ms, no fan-out': `${round(percentile(latencies.alone, 50), 2)} / ${round(p99Alone, 2)} (${latencies.alone.length} requests)`,
          'PATCH p50 / p99 ms, during a fan-out': `${round(percentile(latencies.fanOut, 50), 2)} / ${round(p99FanOut, 2)} (${latencies.fanOut.length} requests)`,
          'PATCH p99 during fan-out vs without': `${round(p99FanOut / p99Alone, 2)}×`,
          'transport counters': JSON.stringify(result.counters),
        },
        // Reported, not judged: the issue asks for the figure (A1 judges the APNs-only one).
        checks: [],
        raw: { fanOuts, latencies: { alone: latencies.alone.length, fanOut: latencies.fanOut.length, p99Alone, p99FanOut } },
      };
    } finally {
      await Promise.all([apnsDouble.stop(), fcmDouble.stop()]);
    }
  },
};
