import { hammer } from './load.mjs';
import { startServer } from './process.mjs';
import { median, round } from './stats.mjs';

/**
 * Runs baseline and project alternately (`runs` times each) under the same request load
 * and compares median throughput and server CPU per request.
 */
export async function compareThroughput({ baseline, project, path, body, runs, duration, connections = 50 }) {
  const servers = { baseline: await startServer(baseline.script, baseline), project: await startServer(project.script, project) };
  const samples = { baseline: [], project: [] };
  try {
    const once = async (which, seconds) => {
      const server = servers[which];
      const headers = { 'content-type': 'application/json', ...(server.token ? { authorization: `Token ${server.token}` } : {}) };
      const before = await server.cpu();
      const load = await hammer({ url: server.url + path, headers, body, connections, duration: seconds });
      const after = await server.cpu();
      if (load.non2xx > 0 || load.errors > 0) throw new Error(`${which}: ${load.non2xx} non-2xx answers, ${load.errors} errors`);
      return { ...load, cpuMicrosPerRequest: (after - before) / load.requests };
    };
    await once('baseline', 1); // warm-up: JIT, connections
    await once('project', 1);
    for (let i = 0; i < runs; i++) {
      samples.baseline.push(await once('baseline', duration));
      samples.project.push(await once('project', duration));
    }
  } finally {
    await servers.baseline.stop();
    await servers.project.stop();
  }
  const summary = (list) => ({
    requestsPerSecond: round(median(list.map((s) => s.requestsPerSecond)), 0),
    cpuMicrosPerRequest: round(median(list.map((s) => s.cpuMicrosPerRequest)), 2),
    p99Ms: median(list.map((s) => s.p99Ms)),
  });
  const b = summary(samples.baseline);
  const p = summary(samples.project);
  return { baseline: b, project: p, ratio: round(p.requestsPerSecond / b.requestsPerSecond, 3), addedCpuMicros: round(p.cpuMicrosPerRequest - b.cpuMicrosPerRequest, 2), samples };
}
