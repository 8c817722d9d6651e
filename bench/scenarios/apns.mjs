// A1–A3: pushes to real phones through APNs (docs/contract/apns.md), against transport-apns's
// test double. Where the processes run: the measured sender (Tilecast with
// transport-apns, or the bare node:http2 client) alone on the server cores; the double,
// which both senders push to, on a core of its own when the machine has one to spare,
// else on the load core with the runner, niced either way, so that the runner's PATCH
// latency clock is not delayed by it. The runner is idle while a fan-out runs, so the
// double then has that core to itself; its CPU busy share is reported (near 100 % it
// would be the bottleneck and hide the senders' difference). A1's latency phase also runs
// with the sender on two cores where the machine has at least four (SENDER_CORES_CHECKED).
import { publishHeaders, send } from '../lib/http.mjs';
import { A1_DEVICES, A2_ACTIVITIES, A2_DEVICES_PER_ACTIVITY, CONNECTIONS, STREAMS, senderEnv, signingKeys, updateLabel } from '../lib/apns-fleet.mjs';
import { progressContent, widgetBody } from '../lib/payloads.mjs';
import { senderCpus } from '../lib/cpus.mjs';
import { HELPER_CPUS, LAYOUT, SERVER_CPUS, hasChrt, startServer } from '../lib/process.mjs';
import { median, percentile, round } from '../lib/stats.mjs';

export const pct = (ratio) => `${round(ratio * 100, 1)} %`;
export const READY_MS = 180_000;
/** A1P and A2P: the database Tilecast's store uses (D1's default). */
export const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
/** A1's latency phase: the publisher's PATCHes per second, and fan-outs (each with a quiet window) measured. */
export const PATCH_RATE = 200;
export const LATENCY_ROUNDS = 8;
/**
 * A1's latency target holds for a sender with a core to spare for its connection worker:
 * checked with the sender on 2 cores, on machines with at least 4 (2 for the sender, the
 * runner's, the double's). The 1-core figure is reported with its floor (docs/decisions/0108-a1-two-sender-cores.md).
 */
export const SENDER_CORES_CHECKED = 2;
export const MIN_CPUS_FOR_CHECK = 4;
export const LATENCY_TARGET = 1.2;

/** The cores for a sender given `count` of them, or `undefined` when this run has too few (cpus.mjs). */
export function senderCores(count) {
  return count === 1 ? SERVER_CPUS.split(',')[0] : senderCpus(LAYOUT, count);
}

/** The double, in its own process on the helper core (niced: the runner's latency clock comes first). */
export async function startDouble(keys) {
  return startServer('servers/apns-double.mjs', { env: { BENCH_APNS_PUBLIC_KEY: keys.publicPem }, cpu: HELPER_CPUS, launcher: ['nice', '-n', '10'] });
}

/**
 * A sender: `bare` (the baseline) or `tilecast`, for fleet `a1` or `a2`, on `cpu` (the
 * server cores by default; `nodeArgs`: tools/a1-latency.mjs). `store` `postgres` (A1P,
 * A2P) puts Tilecast's store on PostgreSQL; the bare client has no store either way.
 */
function startSender(kind, mode, double, keys, { nodeArgs = [], launcher = [], cpu = SERVER_CPUS, store = 'memory' } = {}) {
  const script = kind === 'bare' ? 'baselines/apns-node-http.mjs' : 'servers/tilecast-apns.mjs';
  const onPostgres = kind === 'tilecast' && store === 'postgres';
  const args = onPostgres ? [mode, 'postgres'] : [mode];
  const env = onPostgres ? { ...senderEnv(double, keys), DATABASE_URL } : senderEnv(double, keys);
  return startServer(script, { args, env, readyTimeoutMs: READY_MS, nodeArgs, launcher, cpu });
}

/** Pushes transport-apns resolved `superseded` so far (a newer one of the device and activity replaced them). */
const supersededBy = async (sender) => (await sender.ask({ type: 'counters' }, 'counters')).counters?.superseded ?? 0;

/**
 * Runs `trigger` (the publisher's requests) and waits until the sender has settled `count`
 * more pushes; then checks at the double that those arrived, all accepted, each device's
 * in timestamp and update order. With `superseding` (Tilecast's sender), pushes a newer
 * one replaced before they were sent (docs/contract/apns.md#apns-latest-wins) settle
 * without reaching the double: the double then gets `count` less those. Answers pushes
 * settled per second from the first request to the last push settled, and the CPU busy
 * share of the sender and of the double.
 */
export async function fanOut(sender, double, count, trigger, { atDouble = true, alongside = null, superseding = false } = {}) {
  await double.ask({ type: 'reset' }, 'reset');
  sender.pushed = (sender.pushed ?? 0) + count;
  const supersededBefore = superseding ? await supersededBy(sender) : 0;
  const [senderCpu, doubleCpu] = [await sender.cpu(), await double.cpu()];
  const done = sender.ask({ type: 'await-pushes', total: sender.pushed }, 'pushes-done', 300_000);
  const started = performance.now();
  await Promise.all([trigger(), alongside?.()]);
  await done;
  const ms = performance.now() - started;
  const [senderAfter, doubleAfter] = [await sender.cpu(), await double.cpu()];
  // Without the double (a stand-in transport, tools/a1-latency.mjs), nothing to check there.
  const summary = atDouble ? await double.ask({ type: 'summary' }, 'summary') : null;
  const superseded = superseding ? (await supersededBy(sender)) - supersededBefore : 0;
  const sent = count - superseded;
  if (summary !== null && (summary.received !== sent || summary.statuses[200] !== sent))
    throw new Error(`expected ${sent} pushes accepted (${count} less ${superseded} superseded), the double got ${JSON.stringify(summary)}`);
  return {
    pushesPerSecond: count / (ms / 1000),
    sentPerSecond: sent / (ms / 1000),
    ms,
    senderBusy: (senderAfter - senderCpu) / 1000 / ms,
    senderCpuMicrosPerPush: (senderAfter - senderCpu) / count,
    doubleBusy: (doubleAfter - doubleCpu) / 1000 / ms,
    outOfOrder: summary?.outOfOrder ?? 0,
    behindLatest: summary?.behindLatest ?? 0,
    superseded,
    example: summary?.example ?? null,
    peakStreams: summary?.peakOpenStreams ?? null,
    connections: summary?.connections ?? null,
  };
}

export const patchOk = async (port, path, headers, body) => {
  const status = await send('PATCH', port, path, headers, body);
  if (status !== 200) throw new Error(`PATCH ${path} answered ${status}`);
};

/**
 * Both senders, alternately, `runs` times with new processes (`start(kind)`, APNs's by
 * default): each does `warmups` unmeasured fan-outs then `measured` ones. Answers the
 * samples per side.
 */
export async function compareSenders({
  mode,
  store = 'memory',
  double,
  keys,
  runs,
  warmups,
  measured,
  fan,
  start = (kind) => startSender(kind, mode, double, keys, { store }),
}) {
  const samples = { bare: [], tilecast: [] };
  for (let run = 0; run < runs; run++) {
    const order = run % 2 === 0 ? ['bare', 'tilecast'] : ['tilecast', 'bare'];
    for (const kind of order) {
      const sender = await start(kind);
      try {
        for (let i = 0; i < warmups; i++) await fan(sender, kind);
        for (let i = 0; i < measured; i++) samples[kind].push(await fan(sender, kind));
        if (kind === 'tilecast') samples.counters = (await sender.ask({ type: 'counters' }, 'counters')).counters;
      } finally {
        await sender.stop();
      }
    }
  }
  return samples;
}

export const summarise = (list) => ({
  pushesPerSecond: round(median(list.map((s) => s.pushesPerSecond)), 0),
  senderBusy: median(list.map((s) => s.senderBusy)),
  cpuPerPush: median(list.map((s) => s.senderCpuMicrosPerPush)),
  doubleBusy: median(list.map((s) => s.doubleBusy)),
  outOfOrder: list.reduce((sum, s) => sum + s.outOfOrder, 0),
  behindLatest: list.reduce((sum, s) => sum + s.behindLatest, 0),
  superseded: median(list.map((s) => s.superseded)),
  sentPerSecond: round(median(list.map((s) => s.sentPerSecond)), 0),
});

export function senderFigures(b, t, samples, transport = 'transport-apns') {
  return {
    'bare node:http2 pushes/s': b.pushesPerSecond,
    [`tilecast ${transport} pushes/s`]: t.pushesPerSecond,
    'sender CPU µs per push: bare / tilecast': `${round(b.cpuPerPush, 1)} / ${round(t.cpuPerPush, 1)} (${pct(b.cpuPerPush / t.cpuPerPush)})`,
    'sender CPU busy: bare / tilecast': `${pct(b.senderBusy)} / ${pct(t.senderBusy)}`,
    'double CPU busy: bare / tilecast runs': `${pct(b.doubleBusy)} / ${pct(t.doubleBusy)}`,
    'connections × streams (both senders)': `${CONNECTIONS} × ${STREAMS}`,
    'transport counters (last run)': JSON.stringify(samples.counters),
  };
}

/**
 * A1's fan-out sent by the bare node:http2 client in a process of its own on the sender's
 * core, as far out of the publisher's way as Linux allows: at `SCHED_IDLE` (any other
 * thread that wakes takes the CPU from it at once) and without garbage-collector threads
 * (`--single-threaded-gc`). Beside the stand-in transport (the `control` of patchLatency)
 * it shows what that much HTTP/2 work on the publisher's core costs its PATCH at best.
 * Answers a function that sends one fan-out and resolves once all its pushes were answered.
 */
async function idleBareSender(double, keys, cpu) {
  const bare = await startSender('bare', 'a1', double, keys, { nodeArgs: ['--single-threaded-gc'], launcher: ['chrt', '--idle', '0'], cpu });
  let pushed = 0;
  const fan = async () => {
    pushed += A1_DEVICES;
    const done = bare.ask({ type: 'await-pushes', total: pushed }, 'pushes-done', 300_000);
    await patchOk(bare.port, '/widget/control', { 'content-type': 'application/json' }, widgetBody());
    await done;
  };
  return { fan, stop: () => bare.stop() };
}

/**
 * The publisher's PATCH latency (another account's widget, no devices), under a light
 * steady load of `rate` per second, with and without a fan-out in progress: fan-outs and
 * quiet windows of the same length alternate `rounds` times in one Tilecast process.
 * `mode` `a1-stand-in`: the transport replaced by a stand-in (no HTTP/2, see the server);
 * with `control`, each fan-out is also sent for real by idleBareSender, on the same cores.
 * `cpu`: the sender's cores (the server cores by default). For tools/a1-latency.mjs:
 * `nodeArgs` for the server, and `log`, which also answers every PATCH as [epoch start,
 * ms, phase].
 */
export async function patchLatency({ double, keys, rounds, rate, mode = 'a1', control = false, nodeArgs = [], log = false, cpu = SERVER_CPUS }) {
  const alongside = control ? await idleBareSender(double, keys, cpu) : null;
  const sender = await startSender('tilecast', mode, double, keys, { nodeArgs, cpu }).catch(async (error) => {
    await alongside?.stop();
    throw error;
  });
  const quiet = { headers: { 'content-type': 'application/json', authorization: 'Token tok_quiet' }, body: widgetBody() };
  const latencies = { alone: [], fanOut: [], log: [], fanOutMs: [] };
  let phase = null;
  let sending = true;
  const load = (async () => {
    const pending = [];
    while (sending) {
      const bucket = phase;
      const started = performance.now();
      pending.push(
        patchOk(sender.port, '/widget/load', quiet.headers, quiet.body).then(() => {
          if (bucket === null || phase !== bucket) return;
          latencies[bucket].push(performance.now() - started);
          if (log) latencies.log.push([performance.timeOrigin + started, performance.now() - started, bucket]);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
    }
    await Promise.all(pending);
  })();
  try {
    let widget = 0;
    const fan = () =>
      fanOut(sender, double, A1_DEVICES, () => patchOk(sender.port, `/widget/panel-${widget++}`, publishHeaders(sender), widgetBody()), {
        atDouble: mode === 'a1',
        alongside: alongside?.fan,
      });
    await fan(); // warm-up, unmeasured
    await new Promise((resolve) => setTimeout(resolve, 1000));
    if (log) latencies.traceBefore = await sender.ask({ type: 'trace' }, 'trace');
    for (let round = 0; round < rounds; round++) {
      phase = 'fanOut';
      const { ms } = await fan();
      latencies.fanOutMs.push(ms);
      phase = null;
      await new Promise((resolve) => setTimeout(resolve, 200));
      phase = 'alone';
      await new Promise((resolve) => setTimeout(resolve, Math.max(ms, 1000)));
      phase = null;
    }
    if (log) latencies.traceAfter = await sender.ask({ type: 'trace' }, 'trace');
  } finally {
    sending = false;
    await load;
    await sender.stop();
    await alongside?.stop();
  }
  return latencies;
}

/**
 * The same ratio with the transport's HTTP/2 work moved where it disturbs the publisher
 * least (patchLatency's `control`): what any sender sharing the publisher's core reaches
 * at best on this machine, to read the A1 check against.
 */
async function latencyFloor({ double, keys, rounds, cpu }) {
  const latencies = await patchLatency({ double, keys, rounds, rate: PATCH_RATE, mode: 'a1-stand-in', control: true, cpu });
  const [alone, fanOut] = [percentile(latencies.alone, 99), percentile(latencies.fanOut, 99)];
  return `${round(fanOut / alone, 2)}× (p99 ${round(fanOut, 2)} / ${round(alone, 2)} ms)`;
}

/** A1's latency phase with the sender on `cpu`, and its floor on the same cores: the figures and the ratio. */
async function latencyOn({ double, keys, rounds, cpu }) {
  const latencies = await patchLatency({ double, keys, rounds, rate: PATCH_RATE, cpu });
  const [p99Alone, p99FanOut] = [percentile(latencies.alone, 99), percentile(latencies.fanOut, 99)];
  const floor = hasChrt ? await latencyFloor({ double, keys, rounds, cpu }) : 'not measured (no chrt)';
  return {
    ratio: p99FanOut / p99Alone,
    raw: { cpu, alone: latencies.alone.length, fanOut: latencies.fanOut.length, p99Alone, p99FanOut },
    figures: (label) => ({
      [`PATCH p50 / p99 ms, quiet, ${label}`]: `${round(percentile(latencies.alone, 50), 2)} / ${round(p99Alone, 2)} (${latencies.alone.length} requests)`,
      [`PATCH p50 / p99 ms, fan-out, ${label}`]: `${round(percentile(latencies.fanOut, 50), 2)} / ${round(p99FanOut, 2)} (${latencies.fanOut.length} requests)`,
      [`PATCH p99 ratio; floor, ${label}`]: `${round(p99FanOut / p99Alone, 2)}×; ${floor}`,
    }),
  };
}

export const a1 = {
  id: 'A1',
  title: `one widget update fanned out to ${A1_DEVICES} devices (WidgetKit pushes) through transport-apns to its test double, vs a bare node:http2 client`,
  async run({ quick }) {
    const keys = signingKeys();
    const double = await startDouble(keys);
    try {
      const widgets = new Map();
      const samples = await compareSenders({
        mode: 'a1',
        double,
        keys,
        runs: quick ? 1 : 3,
        warmups: 2,
        measured: quick ? 1 : 3,
        fan: (sender) => {
          const slug = `panel-${(widgets.get(sender) ?? 0) % 64}`;
          widgets.set(sender, (widgets.get(sender) ?? 0) + 1);
          return fanOut(sender, double, A1_DEVICES, () => patchOk(sender.port, `/widget/${slug}`, publishHeaders(sender), widgetBody()));
        },
      });
      const b = summarise(samples.bare);
      const t = summarise(samples.tilecast);
      const ratio = t.pushesPerSecond / b.pushesPerSecond;
      const rounds = quick ? 2 : LATENCY_ROUNDS;
      const oneCore = await latencyOn({ double, keys, rounds, cpu: senderCores(1) });
      const checks = [{ name: 'pushes/s vs bare client', value: pct(ratio), target: '>= 80.0 %', pass: ratio >= 0.8 }];
      const twoCores = LAYOUT.cpuCount >= MIN_CPUS_FOR_CHECK ? senderCores(SENDER_CORES_CHECKED) : undefined;
      const twoCore = twoCores === undefined ? null : await latencyOn({ double, keys, rounds, cpu: twoCores });
      if (twoCore !== null) {
        const value = `${round(twoCore.ratio, 2)}×`;
        checks.push({
          name: `PATCH p99 ratio, ${SENDER_CORES_CHECKED} sender cores`,
          value,
          target: `<= ${LATENCY_TARGET.toFixed(2)}×`,
          pass: twoCore.ratio <= LATENCY_TARGET,
        });
      }
      const notChecked =
        LAYOUT.cpuCount < MIN_CPUS_FOR_CHECK
          ? `not run: needs ${MIN_CPUS_FOR_CHECK} cores, this run has ${LAYOUT.cpuCount}`
          : `not run: no ${SENDER_CORES_CHECKED} cores for the sender beside the load's and the double's`;
      return {
        figures: {
          ...senderFigures(b, t, samples),
          ...oneCore.figures('1 sender core'),
          ...(twoCore === null
            ? { [`PATCH p99 ratio, ${SENDER_CORES_CHECKED} sender cores`]: notChecked }
            : twoCore.figures(`${SENDER_CORES_CHECKED} sender cores`)),
        },
        checks,
        raw: { samples, latencies: { oneCore: oneCore.raw, twoCores: twoCore?.raw ?? null } },
      };
    } finally {
      await double.stop();
    }
  },
};

/** A2's publisher requests: one update per activity, `rounds` times (each round after the last one's answers). */
export function activityBurst(sender, kind, rounds, firstSequence) {
  return async () => {
    for (let round = 0; round < rounds; round++) {
      const content = progressContent();
      content.header_left = { ...content.header_left, value: updateLabel(firstSequence + round) };
      const body = JSON.stringify({ state: 'ONGOING', content });
      await Promise.all(
        Array.from({ length: A2_ACTIVITIES }, (_, n) =>
          kind === 'bare'
            ? patchOk(sender.port, `/activity/a2-${n}/trip`, { 'content-type': 'application/json' }, body)
            : patchOk(sender.port, '/activity/trip', { 'content-type': 'application/json', authorization: `Token tok_a2_${n}` }, body),
        ),
      );
    }
  };
}

export const a2 = {
  id: 'A2',
  title: `${A2_ACTIVITIES} Live Activities, each on ${A2_DEVICES_PER_ACTIVITY} devices, updated in bursts through transport-apns, vs a bare node:http2 client`,
  async run({ quick }) {
    const keys = signingKeys();
    const double = await startDouble(keys);
    const rounds = 3;
    const pushes = rounds * A2_ACTIVITIES * A2_DEVICES_PER_ACTIVITY;
    try {
      const sequences = new Map();
      const samples = await compareSenders({
        mode: 'a2',
        double,
        keys,
        runs: quick ? 1 : 3,
        warmups: 1,
        measured: quick ? 1 : 2,
        fan: (sender, kind) => {
          const first = sequences.get(sender) ?? 1;
          sequences.set(sender, first + rounds);
          return fanOut(sender, double, pushes, activityBurst(sender, kind, rounds, first), { superseding: kind === 'tilecast' });
        },
      });
      const b = summarise(samples.bare);
      const t = summarise(samples.tilecast);
      const ratio = t.pushesPerSecond / b.pushesPerSecond;
      const example = samples.tilecast.find((s) => s.example !== null)?.example;
      return {
        figures: {
          [`pushes per burst (${rounds} updates × ${A2_ACTIVITIES} activities × ${A2_DEVICES_PER_ACTIVITY} devices)`]: pushes,
          ...senderFigures(b, t, samples),
          'pushes out of order: bare / tilecast': `${b.outOfOrder} / ${t.outOfOrder}${example ? ` (e.g. ${JSON.stringify(example)})` : ''}`,
          'tilecast pushes superseded per burst (median; never sent, a newer update of the device and activity replaced them)': t.superseded,
          'tilecast pushes sent/s (the superseded left out)': t.sentPerSecond,
          'devices not ending on the last update: bare / tilecast': `${b.behindLatest} / ${t.behindLatest}`,
        },
        checks: [
          { name: 'pushes/s vs bare client', value: pct(ratio), target: '>= 80.0 %', pass: ratio >= 0.8 },
          { name: "every device's pushes in order", value: `${t.outOfOrder} out of order`, target: '0', pass: t.outOfOrder === 0 },
          { name: 'every device ends on the last update', value: `${t.behindLatest} behind`, target: '0', pass: t.behindLatest === 0 },
        ],
        raw: { samples },
      };
    } finally {
      await double.stop();
    }
  },
};

export const a3 = {
  id: 'A3',
  title: 'memory per registered device in the memory store (heap after a full GC), with and without its APNs tokens',
  async run({ quick }) {
    const count = quick ? 2_000 : 20_000;
    const perDevice = { bare: [], apns: [] };
    for (let run = 0; run < (quick ? 1 : 3); run++) {
      for (const apns of [false, true]) {
        const server = await startServer('servers/tilecast-apns.mjs', { args: ['a3'], readyTimeoutMs: READY_MS });
        try {
          const before = (await server.stats()).memory.heapUsed;
          await server.ask({ type: 'register', count, apns }, 'registered', 300_000);
          const after = (await server.stats()).memory.heapUsed;
          perDevice[apns ? 'apns' : 'bare'].push((after - before) / count);
        } finally {
          await server.stop();
        }
      }
    }
    const bare = median(perDevice.bare);
    const withApns = median(perDevice.apns);
    return {
      figures: {
        'devices registered per run': count,
        'bytes per device (record, token index, account link)': round(bare, 0),
        'bytes per device with push-to-start, widgets and one update token': round(withApns, 0),
        'of which APNs tokens': round(withApns - bare, 0),
      },
      checks: [],
      raw: perDevice,
    };
  },
};
