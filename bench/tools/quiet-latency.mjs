// Diagnostic: why A1's PATCH p99 without a fan-out is many times its p50 (GC, timers or the load tool).
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { PerformanceObserver, performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { A1_DEVICES } from '../lib/apns-fleet.mjs';
import { commandLine } from '../lib/cli.mjs';
import { send } from '../lib/http.mjs';
import { widgetBody } from '../lib/payloads.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';
import { median, percentile, round } from '../lib/stats.mjs';
import { PATCH_RATE } from '../scenarios/apns.mjs';

const { values } = commandLine(
  `
Usage: node bench/tools/quiet-latency.mjs [--windows N] [--window-ms MS] [--fan-outs] [--loop-samplers] [--node-args=ARGS] [--out FILE]

A1's quiet windows alone: the Tilecast server of A1's latency phase (${A1_DEVICES} devices, with
the stand-in transport of a1-latency --stand-in: no HTTP/2, no APNs double) gets A1's
publisher load, PATCH /widget/load at ${PATCH_RATE}/s, in windows of the same length. Two load
tools take turns window by window: A1's own (node:http keep-alive agent, lib/http.mjs)
and a bare client writing the request's bytes on a kept-alive socket. With --fan-outs,
each window comes 200 ms after a fan-out of the stand-in (as in A1); without, no fan-out
ever runs.

Prints per load tool: PATCH p50, p90, p99 and max; then, for its slow PATCHes (over 3x
its p50), where their time went (before the server's request event, handling, after
its answer finished) and how many overlapped a collection on the server's main thread
(by kind) or a collection in this process (the load tool's); then, per thread of both
processes, the CPU time and the time spent runnable but waiting for a CPU (Linux
schedstat), summed over the windows alone.

  --windows N       windows (default 8, taking turns between the two tools)
  --window-ms MS    length of a window (default 1500)
  --fan-outs        a fan-out before each window, as in A1
  --loop-samplers   also sample both event loops with a 1 ms timer (the server's through
                    BENCH_TRACE_LOOP): the server's event-loop delay, and which slow PATCHes
                    overlapped a stall of more than 2 ms of the load tool's loop. The timers
                    cost CPU of their own (about 0.4 s a process over the 12 s of windows)
  --node-args=ARGS  extra node options for the server (e.g. --node-args=--single-threaded-gc)
  --out FILE        also write each slow PATCH there, one JSON object a line: its tool, start
                    (epoch ms) and monotonic start (ns, CLOCK_MONOTONIC, to line up with
                    \`perf sched record -k mono\`), its ms before the request event, handling and
                    after, and the server's pid
`,
  {
    windows: { type: 'string' },
    'window-ms': { type: 'string' },
    'fan-outs': { type: 'boolean' },
    'loop-samplers': { type: 'boolean' },
    out: { type: 'string' },
    'node-args': { type: 'string' },
  },
);
const windows = Number(values.windows ?? 8);
const windowMs = Number(values['window-ms'] ?? 1500);
if (![windows, windowMs].every((n) => Number.isInteger(n) && n >= 1)) {
  console.error('--windows and --window-ms take a whole number of at least 1');
  process.exit(2);
}

pinLoadGenerator(import.meta.url);
if (values.out !== undefined) writeFileSync(values.out, '');

// This process's own collections and event-loop stalls (epoch ms), to line up with slow PATCHes.
const now = () => performance.timeOrigin + performance.now();
/** An epoch time (ms) as CLOCK_MONOTONIC ns (process.hrtime's clock), for lining up with perf. */
const monoOffsetNs = process.hrtime.bigint() - BigInt(Math.round(now() * 1e6));
const toMono = (epochMs) => BigInt(Math.round(epochMs * 1e6)) + monoOffsetNs;
const runnerGc = [];
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) if (windowOpen) runnerGc.push([performance.timeOrigin + entry.startTime, entry.duration]);
}).observe({ entryTypes: ['gc'] });
const stalls = [];
let windowOpen = false;
let lastTick = now();
const samplers = values['loop-samplers'] === true;
const sampler = setInterval(() => {
  const at = now();
  if (windowOpen && at - lastTick > 3) stalls.push([lastTick + 1, at - lastTick - 1]); // the interval is 1 ms
  lastTick = at;
}, 1);
if (!samplers) clearInterval(sampler);

const trace = fileURLToPath(new URL('../lib/latency-trace.mjs', import.meta.url));
const nodeArgs = [`--import=${trace}`, ...(values['node-args'] ?? '').split(' ').filter(Boolean)];
const server = await startServer('servers/tilecast-apns.mjs', {
  args: ['a1-stand-in'],
  nodeArgs,
  env: { BENCH_TRACE_LOOP: samplers ? '1' : '0' },
  readyTimeoutMs: 180_000,
});
const quiet = { 'content-type': 'application/json', authorization: 'Token tok_quiet' };
const body = widgetBody();

/** A client that writes the request's bytes on kept-alive sockets and reads just enough of the answer. */
function bareClient(port) {
  const request = Buffer.from(
    `PATCH /widget/load HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${Object.entries(quiet)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('')}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const idle = [];
  const open = () =>
    new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => resolve(socket)).once('error', reject);
      socket.setNoDelay(true);
    });
  const sendOne = async () => {
    const socket = idle.pop() ?? (await open());
    return new Promise((resolve, reject) => {
      let text = '';
      const onData = (chunk) => {
        text += chunk.toString('latin1');
        const end = text.indexOf('\r\n\r\n');
        if (end === -1) return;
        const length = Number(/content-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? 0);
        if (text.length < end + 4 + length) return;
        socket.off('data', onData).off('error', reject);
        idle.push(socket);
        resolve(Number(text.slice(9, 12)));
      };
      socket.on('data', onData).once('error', reject);
      socket.write(request);
    });
  };
  // Four sockets open before the first window: no connect inside a measured window.
  const warm = Promise.all(Array.from({ length: 4 }, open)).then((sockets) => idle.push(...sockets));
  return { warm, send: sendOne, close: () => idle.forEach((socket) => socket.destroy()) };
}

const bare = bareClient(server.port);
await bare.warm;
const tools = {
  'node:http agent': () => send('PATCH', server.port, '/widget/load', quiet, body),
  'bare socket': bare.send,
};
const names = Object.keys(tools);
const latencies = Object.fromEntries(names.map((name) => [name, []])); // [epoch start, ms]

/** PATCHes at PATCH_RATE for `ms` with `tool`, as A1's load loop sends them. */
async function window(tool, ms) {
  const pending = [];
  const until = performance.now() + ms;
  while (performance.now() < until) {
    const started = performance.now();
    pending.push(
      tools[tool]().then((status) => {
        if (status !== 200) throw new Error(`PATCH /widget/load answered ${status}`);
        latencies[tool].push([performance.timeOrigin + started, performance.now() - started]);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 1000 / PATCH_RATE));
  }
  await Promise.all(pending);
}

let pushed = 0;
/** A fan-out of the stand-in transport (A1's, without HTTP/2): resolves once its pushes settled. */
async function fanOut(n) {
  pushed += A1_DEVICES;
  const done = server.ask({ type: 'await-pushes', total: pushed }, 'pushes-done', 300_000);
  const status = await send('PATCH', server.port, `/widget/panel-${n % 64}`, { 'content-type': 'application/json', authorization: 'Token tok_bench_0' }, body);
  if (status !== 200) throw new Error(`fan-out PATCH answered ${status}`);
  await done;
}

try {
  await window(names[0], 1000); // warm-up, unmeasured
  for (const name of names) latencies[name].length = 0;
  const measuredFrom = now();
  // Per thread of both processes, CPU and runqueue wait (ns) summed over the windows alone.
  const threads = new Map();
  const add = (key, nice, cpu, wait) => {
    const sum = threads.get(key) ?? { nice, cpu: 0, wait: 0 };
    threads.set(key, { nice, cpu: sum.cpu + cpu, wait: sum.wait + wait });
  };
  const serverLoop = { p99: [], max: 0 };
  for (let w = 0; w < windows; w++) {
    if (values['fan-outs']) {
      await fanOut(w);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    const before = { server: await server.ask({ type: 'trace' }, 'trace'), runner: ownThread() };
    windowOpen = true;
    await window(names[w % names.length], windowMs);
    windowOpen = false;
    const after = { server: await server.ask({ type: 'trace' }, 'trace'), runner: ownThread() };
    const earlier = new Map(before.server.threads.map((row) => [row[0], row]));
    for (const [tid, nice, cpu, wait] of after.server.threads) {
      const [, , cpu0, wait0] = earlier.get(tid) ?? [tid, nice, 0, 0];
      add(tid === after.server.pid ? 'server main thread' : `server thread ${tid}`, nice, cpu - cpu0, wait - wait0);
    }
    add("load tool's main thread", 0, after.runner[0] - before.runner[0], after.runner[1] - before.runner[1]);
    if (after.server.loop !== null) {
      serverLoop.p99.push(after.server.loop.p99);
      serverLoop.max = Math.max(serverLoop.max, after.server.loop.max);
    }
  }
  const { gc, requests } = await server.ask({ type: 'trace' }, 'trace');
  report(
    gc.filter(([at]) => at >= measuredFrom),
    requests.filter(([at, , url]) => url === '/widget/load' && at >= measuredFrom),
  );
  if (samplers)
    console.log(`server event-loop delay in the windows: p99 ${round(median(serverLoop.p99), 2)} ms (median of the windows'), max ${round(serverLoop.max, 2)}`);
  console.log(`in the ${windows} windows (${round((windows * windowMs) / 1000, 1)} s), per thread (CPU at least 1 ms):`);
  for (const [name, { nice, cpu, wait }] of threads)
    if (cpu >= 1e6) console.log(`  ${name} (nice ${nice}): ran ${round(cpu / 1e6, 0)} ms, waited for a CPU ${round(wait / 1e6, 0)} ms`);
} finally {
  clearInterval(sampler);
  bare.close();
  await server.stop();
}

function report(serverGc, arrivals) {
  const overlaps = (events, start, ms) => events.some(([at, length]) => at < start + ms && at + length > start);
  for (const name of names) {
    const list = latencies[name];
    const ms = list.map(([, m]) => m);
    const p50 = percentile(ms, 50);
    console.log(
      `${name}: ${list.length} PATCHes; p50 ${round(p50, 2)} ms, p90 ${round(percentile(ms, 90), 2)}, p99 ${round(percentile(ms, 99), 2)}, max ${round(Math.max(...ms), 2)} (p99/p50 ${round(percentile(ms, 99) / p50, 1)}×)`,
    );
    const slow = [];
    const sorted = [...arrivals].sort((a, b) => a[0] - b[0]);
    for (const [start, m] of list) {
      if (m <= 3 * p50) continue;
      // Its arrival: the first at the server within [start, start + ms] (1 ms of slack between the clocks).
      const arrival = sorted.find(([at]) => at >= start - 1 && at <= start + m + 1);
      if (arrival === undefined) continue;
      const [arrived, handling] = arrival;
      const gcKinds = serverGc.filter(([at, length]) => at < start + m && at + length > start).map(([, , kind]) => kind);
      slow.push({
        start,
        before: arrived - start,
        handling,
        after: m - (arrived - start) - handling,
        gcKinds,
        runnerGc: overlaps(runnerGc, start, m),
        stall: overlaps(stalls, start, m),
      });
    }
    if (values.out !== undefined)
      for (const { start, before, handling, after } of slow)
        appendFileSync(values.out, `${JSON.stringify({ tool: name, start, monoNs: String(toMono(start)), before, handling, after, serverPid: server.pid })}\n`);
    const mean = (key) => round(slow.reduce((sum, row) => sum + row[key], 0) / Math.max(1, slow.length), 2);
    const kinds = {};
    for (const row of slow) for (const kind of new Set(row.gcKinds)) kinds[kind] = (kinds[kind] ?? 0) + 1;
    console.log(
      `  ${slow.length} over ${round(3 * p50, 2)} ms: on average ${mean('before')} ms before the request event, ${mean('handling')} handling, ${mean('after')} after;` +
        ` overlapping a server collection: ${slow.filter((row) => row.gcKinds.length > 0).length} (${JSON.stringify(kinds)});` +
        ` one of this process: ${slow.filter((row) => row.runnerGc).length}` +
        (samplers ? `; a stall of its event loop: ${slow.filter((row) => row.stall).length}` : ''),
    );
  }
  const handling = arrivals.map(([, m]) => m);
  console.log(
    `server: handling p50 ${round(percentile(handling, 50), 2)} ms, p99 ${round(percentile(handling, 99), 2)}; collections on its main thread: ${countKinds(serverGc)}`,
  );
  console.log(`load tool: ${runnerGc.length} collections in the windows${samplers ? `, ${stalls.length} stalls of its event loop over 2 ms` : ''}`);
}

/** This process's main thread: [CPU ns, runqueue wait ns] (Linux schedstat; zeros elsewhere). */
function ownThread() {
  try {
    return readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ').slice(0, 2).map(Number);
  } catch {
    return [0, 0];
  }
}

function countKinds(list) {
  const counts = {};
  for (const [, ms, kind] of list) {
    counts[kind] ??= { count: 0, ms: 0 };
    counts[kind].count++;
    counts[kind].ms += ms;
  }
  return Object.entries(counts)
    .map(([kind, { count, ms }]) => `${count} ${kind} (${round(ms, 1)} ms)`)
    .join(', ');
}
