import { hammer } from './load.mjs';
import { publishHeaders } from './http.mjs';
import { startServer } from './process.mjs';
import { median, round } from './stats.mjs';

/** Unmeasured load a new server process gets first: both sides settle within it under P1. */
export const WARMUP_SECONDS = 3;

/**
 * Runs baseline and project alternately (`runs` times each) under the same request load
 * and compares median throughput and server CPU per request.
 *
 * Every run starts both servers afresh (as JMH forks a JVM per fork): one process can
 * be faster or slower than the next for its whole life, and medians over several
 * processes keep that draw from deciding the ratio.
 * `warmup` seconds of load first (unmeasured; WARMUP_SECONDS by default).
 */
export async function compareThroughput({ baseline, project, path, body, runs, duration, connections = 50, warmup = WARMUP_SECONDS }) {
  const samples = { baseline: [], project: [] };
  for (let i = 0; i < runs; i++) {
    const servers = { baseline: await startServer(baseline.script, baseline), project: await startServer(project.script, project) };
    try {
      const once = (which, seconds) => measure(servers[which], which, { path, body, connections, seconds });
      await once('baseline', warmup); // JIT, connections
      await once('project', warmup);
      // The order alternates too, so neither side always runs right after the other's load.
      const order = i % 2 === 0 ? ['baseline', 'project'] : ['project', 'baseline'];
      for (const which of order) samples[which].push(await once(which, duration));
    } finally {
      await servers.baseline.stop();
      await servers.project.stop();
    }
  }
  const summary = (list) => ({
    requestsPerSecond: round(median(list.map((s) => s.requestsPerSecond)), 0),
    cpuMicrosPerRequest: round(median(list.map((s) => s.cpuMicrosPerRequest)), 2),
    p99Ms: median(list.map((s) => s.p99Ms)),
  });
  const b = summary(samples.baseline);
  const p = summary(samples.project);
  return {
    baseline: b,
    project: p,
    ratio: round(p.requestsPerSecond / b.requestsPerSecond, 3),
    addedCpuMicros: round(p.cpuMicrosPerRequest - b.cpuMicrosPerRequest, 2),
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
