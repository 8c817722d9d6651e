// Diagnostic: A1's PATCH latency phase alone, and where the slow PATCHes lost their time.
import { appendFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { A1_DEVICES, signingKeys } from '../lib/apns-fleet.mjs';
import { commandLine } from '../lib/cli.mjs';
import { hasChrt, pinLoadGenerator } from '../lib/process.mjs';
import { median, percentile, round } from '../lib/stats.mjs';
import { LATENCY_ROUNDS, PATCH_RATE, SENDER_CORES_CHECKED, patchLatency, senderCores, startDouble } from '../scenarios/apns.mjs';

const { values } = commandLine(
  `
Usage: node bench/tools/a1-latency.mjs [--runs N] [--rounds N] [--sender-cpus N] [--stand-in [--control]] [--node-args=ARGS] [--out FILE]

Runs A1's latency phase (the publisher's PATCH p99 during a fan-out of ${A1_DEVICES} pushes
through transport-apns to its test double, against its p99 in quiet windows of the same
length) N times, each in a new Tilecast process, and prints the ratio the A1 check judges.
Then, for the PATCHes of the fan-outs slower than the quiet windows' p99, where their time
went: before the server's \`request\` event (the publisher's thread had not read the request
yet: busy, collecting garbage, or waiting for the CPU), handling, and after; how many
overlapped one of the publisher thread's garbage collections; and per thread of the
Tilecast process, CPU time and time spent runnable but waiting for a CPU (Linux
schedstat), over the measured rounds. About a minute per run.

  --runs N         runs (default 2)
  --rounds N       fan-outs and quiet windows per run (default ${LATENCY_ROUNDS}, as A1)
  --sender-cpus N  cores for the Tilecast process (and the control sender): 1 (default), or
                   more: the server cores, then cores neither the runner nor the double
                   uses (A1 checks ${SENDER_CORES_CHECKED}; BENCH_SERVER_CPUS and BENCH_LOAD_CPUS as for
                   npm run bench)
  --stand-in       transport-apns replaced by a stand-in that settles every push, about
                   as fast, without sending it: the core's fan-out alone on the
                   publisher's thread, no HTTP/2 work anywhere in the process
  --control        with --stand-in: every fan-out also sent, as real pushes to the double,
                   by the bare node:http2 client in a process of its own on the same core,
                   at SCHED_IDLE (chrt) and with --single-threaded-gc: the HTTP/2 work
                   where it disturbs the publisher least, so the floor any sender sharing
                   the publisher's core could reach
  --node-args=ARGS extra node options for the Tilecast process (--node-args=--single-threaded-gc)
  --out FILE       also write each slow PATCH there, one JSON object a line: its run, start
                   (epoch ms, to line up with \`perf record -k CLOCK_REALTIME\`), and its ms
                   in all, before the request event, handling and after
`,
  {
    runs: { type: 'string' },
    rounds: { type: 'string' },
    'sender-cpus': { type: 'string' },
    'stand-in': { type: 'boolean' },
    control: { type: 'boolean' },
    'node-args': { type: 'string' },
    out: { type: 'string' },
  },
);
const runs = Number(values.runs ?? 2);
const rounds = Number(values.rounds ?? LATENCY_ROUNDS);
const senderCount = Number(values['sender-cpus'] ?? 1);
if (![runs, rounds, senderCount].every((n) => Number.isInteger(n) && n >= 1)) {
  console.error('--runs, --rounds and --sender-cpus take a whole number of at least 1');
  process.exit(2);
}
const cpu = senderCores(senderCount);
if (cpu === undefined) {
  console.error(`--sender-cpus ${senderCount}: this run has too few cores for that beside the runner's and the double's`);
  process.exit(2);
}

if (values.control && (!values['stand-in'] || !hasChrt)) {
  console.error('--control goes with --stand-in (which leaves the HTTP/2 work to the control sender), and needs chrt (util-linux)');
  process.exit(2);
}

pinLoadGenerator(import.meta.url);

const trace = fileURLToPath(new URL('../lib/latency-trace.mjs', import.meta.url));
const nodeArgs = [`--import=${trace}`, ...(values['node-args'] ?? '').split(' ').filter(Boolean)];
const mean = (list) => (list.length === 0 ? 0 : list.reduce((sum, x) => sum + x, 0) / list.length);

/** Where each slow PATCH of the fan-outs spent its time, from the load generator's log and the server's trace. */
function slowPatches(latencies, threshold) {
  const { traceAfter: after } = latencies;
  const arrivals = after.requests.filter(([, , url]) => url === '/widget/load').sort((a, b) => a[0] - b[0]);
  const slow = latencies.log.filter(([, ms, phase]) => phase === 'fanOut' && ms > threshold);
  let at = 0;
  const rows = [];
  for (const [start, ms] of slow) {
    // Its arrival: the first at the server within [start, start + ms] (1 ms of slack for the
    // two processes' clocks). With requests 5 ms apart that is its own, unless an earlier
    // request was held up longer than it.
    while (at < arrivals.length && arrivals[at][0] < start - 1) at++;
    if (at === arrivals.length || arrivals[at][0] > start + ms + 1) continue;
    const [arrived, handling] = arrivals[at];
    const overlapsGc = after.gc.some(([gcStart, gcMs]) => gcStart < start + ms && gcStart + gcMs > start);
    rows.push({ start, ms, before: arrived - start, handling, after: ms - (arrived - start) - handling, overlapsGc });
  }
  return { count: slow.length, rows };
}

/** Per thread, what it ran and waited for a CPU between the two traces (ms). */
function threadTimes({ traceBefore, traceAfter }) {
  const before = new Map(traceBefore.threads.map((row) => [row[0], row]));
  return traceAfter.threads
    .map(([tid, nice, cpu, wait]) => {
      const [, , cpu0, wait0] = before.get(tid) ?? [tid, nice, 0, 0];
      return { tid, nice, main: tid === traceAfter.pid, runMs: (cpu - cpu0) / 1e6, waitMs: (wait - wait0) / 1e6 };
    })
    .filter((thread) => thread.runMs >= 1);
}

if (values.out !== undefined) writeFileSync(values.out, '');
const keys = signingKeys();
const double = await startDouble(keys);
try {
  for (let run = 1; run <= runs; run++) {
    const latencies = await patchLatency({
      double,
      keys,
      rounds,
      rate: PATCH_RATE,
      mode: values['stand-in'] ? 'a1-stand-in' : 'a1',
      control: values.control === true,
      nodeArgs,
      log: true,
      cpu,
    });
    const p99Alone = percentile(latencies.alone, 99);
    const p99FanOut = percentile(latencies.fanOut, 99);
    console.log(
      `run ${run}: PATCH p50/p99 ${round(percentile(latencies.alone, 50), 2)}/${round(p99Alone, 2)} ms without a fan-out (${latencies.alone.length}),` +
        ` ${round(percentile(latencies.fanOut, 50), 2)}/${round(p99FanOut, 2)} ms during one (${latencies.fanOut.length}):` +
        ` ${round(p99FanOut / p99Alone, 2)}×; fan-outs took ${round(median(latencies.fanOutMs), 0)} ms (median)`,
    );
    const { count, rows } = slowPatches(latencies, p99Alone);
    console.log(
      `  ${count} PATCHes during fan-outs slower than ${round(p99Alone, 2)} ms; on average ${round(mean(rows.map((r) => r.before)), 2)} ms before the request event,` +
        ` ${round(mean(rows.map((r) => r.handling)), 2)} ms handling, ${round(mean(rows.map((r) => r.after)), 2)} ms after;` +
        ` ${rows.filter((r) => r.overlapsGc).length} overlapped a garbage collection of the publisher's thread`,
    );
    if (values.out !== undefined) for (const row of rows) appendFileSync(values.out, `${JSON.stringify({ run, ...row })}\n`);
    for (const thread of threadTimes(latencies)) {
      const name = thread.main ? 'publisher thread' : 'thread';
      console.log(`  ${name} ${thread.tid} (nice ${thread.nice}): ran ${round(thread.runMs, 0)} ms, waited for a CPU ${round(thread.waitMs, 0)} ms`);
    }
  }
} finally {
  await double.stop();
}
