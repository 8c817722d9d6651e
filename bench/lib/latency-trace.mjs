// Preloaded (`node --import`) into a bench server by tools/a1-latency.mjs: records what
// the publisher's thread went through, for the tool to line up with the latencies its
// load generator measured. Answers IPC `trace` with:
//   gc:       the main thread's collections, [start, ms, kind] (epoch ms; kind: 'minor', 'major',
//             'incremental' or 'weak callbacks', from perf_hooks' gc entries);
//   requests: per request, [arrival at the `request` event, ms until its answer finished, url];
//   threads:  per thread of the process (Linux), [tid, nice, CPU ns, runqueue wait ns];
//   loop:     with BENCH_TRACE_LOOP=1 (a 1 ms timer of its own in the server), the main thread's
//             event-loop delay since the previous trace, {p50, p99, max} in ms; else null.
// Times are epoch milliseconds (performance.timeOrigin + now), as the load generator's.
import { readdirSync, readFileSync } from 'node:fs';
import { Server } from 'node:http';
import { PerformanceObserver, constants, monitorEventLoopDelay, performance } from 'node:perf_hooks';

const now = () => performance.timeOrigin + performance.now();
const gc = [];
/** perf_hooks' collection kinds (constants.NODE_PERFORMANCE_GC_*). */
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak callbacks',
};
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gc.push([performance.timeOrigin + entry.startTime, entry.duration, KINDS[entry.detail?.kind] ?? 'other']);
}).observe({ entryTypes: ['gc'] });

const requests = [];
const emit = Server.prototype.emit;
Server.prototype.emit = function traced(event, ...args) {
  if (event === 'request') {
    const [req, res] = args;
    const arrived = now();
    res.once('finish', () => requests.push([arrived, now() - arrived, req.url]));
  }
  return emit.call(this, event, ...args);
};

/** Per thread: CPU time and time spent runnable but waiting for a CPU (schedstat), and nice. */
function threads() {
  try {
    return readdirSync('/proc/self/task').map((tid) => {
      const [cpu, wait] = readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const nice = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]); // after the name, which may hold ') '
      return [Number(tid), nice, cpu, wait];
    });
  } catch {
    return [];
  }
}

const loopDelay = process.env.BENCH_TRACE_LOOP === '1' ? monitorEventLoopDelay({ resolution: 1 }) : null;
loopDelay?.enable();
/** The event-loop delay since the previous call (ms), then starts over. */
function loop() {
  if (loopDelay === null) return null;
  const ms = (ns) => ns / 1e6;
  const summary = { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) };
  loopDelay.reset();
  return summary;
}

process.on('message', (message) => {
  if (message?.type === 'trace') process.send({ type: 'trace', id: message.id, pid: process.pid, gc, requests, threads: threads(), loop: loop() });
});
