import autocannon from 'autocannon';
import { LAYOUT } from './process.mjs';

/**
 * One autocannon run; resolves with requests per second, latency and the count of non-2xx
 * answers. With more than one load core (BENCH_LOAD_CPUS), autocannon runs one worker
 * thread per core and shares the connections among them.
 */
export async function hammer({ url, method = 'PATCH', headers, body, connections = 50, duration }) {
  const workers = LAYOUT.loadCount > 1 ? { workers: LAYOUT.loadCount } : {};
  const result = await autocannon({ url, method, headers, body, connections, duration, pipelining: 1, ...workers });
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
