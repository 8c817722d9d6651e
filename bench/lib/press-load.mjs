import { send } from './http.mjs';
import { openStreams } from './sse-clients.mjs';



/** How each server is asked for a press of account `n`. */
const pressRequest = {
  baseline: (n, requestId) => ({ path: '/press', headers: {}, body: JSON.stringify({ account: n, request_id: requestId }) }),
  tilecast: (n, requestId) => ({
    path: '/device/presses',
    headers: { authorization: `Device dev_bench_${n}` },
    body: JSON.stringify({ owner: `bench-${n}`, slug: 'panel', request_id: requestId, action: 'go' }),
  }),
};

/**
 * Holds `accounts × streamsPerAccount` streams open and sends `rate` presses per second
 * for `seconds`, round-robin over the accounts. Each delivery's latency runs from the
 * moment its press was sent to the moment its stream read the event.
 */
export async function runPressLoad({ server, kind, accounts, streamsPerAccount = 4, rate, seconds, localAddress }) {
  const sentAt = new Map();
  const latencies = [];
  const streams = await openStreams({
    port: server.port,
    count: accounts * streamsPerAccount,
    path: '/events',
    headersFor: (i) => ({ authorization: `Token tok_bench_${Math.floor(i / streamsPerAccount)}` }),
    localAddress,
    onData: (_i, data, now) => {
      const requestId = /"request_id":"([^"]+)"/.exec(data)?.[1];
      const start = requestId && sentAt.get(requestId);
      if (start !== undefined) latencies.push(now - start);
    },
  });
  const before = await server.stats();
  let sent = 0;
  let refused = 0;
  const pending = [];
  const total = rate * seconds;
  const tickMs = 10;
  const perTick = rate / (1000 / tickMs);
  const startedAt = performance.now();
  await new Promise((resolve) => {
    const timer = setInterval(() => {
      const due = Math.min(total, Math.floor(((performance.now() - startedAt) / tickMs) * perTick));
      while (sent < due) {
        const n = sent % accounts;
        const requestId = `r${sent}`;
        const { path, headers, body } = pressRequest[kind](n, requestId);
        sentAt.set(requestId, performance.now());
        pending.push(send('POST', server.port, path, headers, body).then((status) => status !== 202 && refused++, () => refused++));
        sent++;
      }
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    }, tickMs);
  });
  await Promise.all(pending);
  const expected = total * streamsPerAccount;
  const deadline = Date.now() + 5_000;
  while (latencies.length < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const after = await server.stats();
  streams.close();
  return { sent, refused, deliveries: latencies.length, expected, latencies, cpuMicros: after.cpuMicros - before.cpuMicros };
}
