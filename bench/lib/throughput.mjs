import { hammer } from './load.mjs';
import { publishHeaders } from './http.mjs';
import { startServer } from './process.mjs';
import { median, round } from './stats.mjs';

/** Unmeasured load a new server process gets first: both sides settle within it under P1. */
export const WARMUP_SECONDS = 3;

/**
 * Runs baseline and project alternately (`runs` times each) under the same request load
 * and compares median throughput and server CPU per request. With `ceiling` (P0's server,
 * the least any Node server answering the same requests must do), it runs as a third side
 * in the same rotation and both are also compared with it.
 *
 * Every run starts the servers afresh (as JMH forks a JVM per fork): one process can
 * be faster or slower than the next for its whole life, and medians over several
 * processes keep that draw from deciding the ratio.
 * `warmup` seconds of load first (unmeasured; WARMUP_SECONDS by default).
 */
export async function compareThroughput({ baseline, project, ceiling, path, body, runs, duration, connections = 50, warmup = WARMUP_SECONDS }) {
  const sides = ceiling === undefined ? { baseline, project } : { baseline, project, ceiling };
  const names = Object.keys(sides);
  const samples = Object.fromEntries(names.map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    const servers = {};
    try {
      for (const name of names) servers[name] = await startServer(sides[name].script, sides[name]);
      const once = (which, seconds) => measure(servers[which], which, { path, body, connections, seconds });
      for (const name of names) await once(name, warmup); // JIT, connections
      // The order turns from run to run, so no side always runs right after another's load.
      const order = names.map((_, k) => names[(i + k) % names.length]);
      for (const which of order) samples[which].push(await once(which, duration));
    } finally {
      for (const server of Object.values(servers)) await server.stop();
    }
  }
  const summary = (list) => ({
    requestsPerSecond: round(median(list.map((s) => s.requestsPerSecond)), 0),
    cpuMicrosPerRequest: round(median(list.map((s) => s.cpuMicrosPerRequest)), 2),
    p99Ms: median(list.map((s) => s.p99Ms)),
  });
  const b = summary(samples.baseline);
  const p = summary(samples.project);
  const c = ceiling === undefined ? undefined : summary(samples.ceiling);
  return {
    baseline: b,
    project: p,
    ratio: round(p.requestsPerSecond / b.requestsPerSecond, 3),
    addedCpuMicros: round(p.cpuMicrosPerRequest - b.cpuMicrosPerRequest, 2),
    ...(c === undefined
      ? {}
      : {
          ceiling: c,
          ceilingRatios: { project: round(p.requestsPerSecond / c.requestsPerSecond, 3), baseline: round(b.requestsPerSecond / c.requestsPerSecond, 3) },
        }),
    samples,
  };
}

/** One timed load against one server: its answers must all be 2xx. */
async function measure(server, which, { path, body, connections, seconds }) {
  const headers = publishHeaders(server);
  const before = await server.cpu();
  const load = await hammer({ url: server.url + path, headers, body, connections, duration: seconds });
  const after = await server.cpu();
  if (load.non2xx > 0 || load.errors > 0) throw new Error(`${which}: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
  return { ...load, cpuMicrosPerRequest: (after - before) / load.requests };
}
