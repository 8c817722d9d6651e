import autocannon from 'autocannon';

/** One autocannon run; resolves with requests per second, latency and the count of non-2xx answers. */
export async function hammer({ url, method = 'PATCH', headers, body, connections = 50, duration }) {
  const result = await autocannon({ url, method, headers, body, connections, duration, pipelining: 1 });
  return {
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
    p99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  };
}
