import { send } from './http.mjs';
import { openStreams } from './sse-clients.mjs';
import { threadCpu, threadCpuSince } from './threads.mjs';

/** How each server is asked for a press of account `n`. */
export const pressRequest = {
  baseline: (n, requestId) => ({ path: '/press', headers: {}, body: JSON.stringify({ account: n, request_id: requestId }) }),
  tilecast: (n, requestId) => ({
    path: '/device/presses',
    headers: { authorization: `Device dev_bench_${n}` },
    body: JSON.stringify({ owner: `bench-${n}`, slug: 'panel', request_id: requestId, action: 'go' }),
  }),
};

/**
 * Holds `accounts × streamsPerAccount` streams open and sends `rate` presses per second
 * for `warmupSeconds` (not measured: a long-running server has its press path compiled
 * and its connections open; a cold one spends much of its first seconds in the JIT),
 * then for `seconds`, round-robin over the accounts. Each measured delivery's latency runs
 * from the moment its press was sent to the moment its stream read the event; CPU is the
 * server's over the measured phase.
 */
export async function runPressLoad({ server, kind, accounts, streamsPerAccount = 4, rate, seconds, warmupSeconds = 5, localAddress, onMeasuring }) {
  const sentAt = new Map();
  const latencies = [];
  let warmupDeliveries = 0;
  const streams = await openStreams({
    port: server.port,
    count: accounts * streamsPerAccount,
    path: '/events',
    headersFor: (i) => ({ authorization: `Token tok_bench_${Math.floor(i / streamsPerAccount)}` }),
    localAddress,
    onData: (_i, data, now) => {
      const requestId = /"request_id":"([^"]+)"/.exec(data)?.[1];
      if (requestId?.startsWith('w')) warmupDeliveries++;
      const start = requestId && sentAt.get(requestId);
      if (start !== undefined) latencies.push(now - start);
    },
  });
  const warmup = await sendPresses({ server, kind, accounts, rate, total: rate * warmupSeconds, prefix: 'w' });
  await waitFor(() => warmupDeliveries >= warmup.sent * streamsPerAccount);
  const before = await server.cpu();
  const threadsBefore = threadCpu(server.pid);
  onMeasuring?.(); // diagnostics start recording here (bench/tools/perf-presses.mjs)
  const { sent, refused } = await sendPresses({ server, kind, accounts, rate, total: rate * seconds, prefix: 'r', sentAt });
  const expected = sent * streamsPerAccount;
  await waitFor(() => latencies.length >= expected);
  const after = await server.cpu();
  const threads = threadCpuSince(threadsBefore, threadCpu(server.pid));
  streams.close();
  return { sent, refused: refused + warmup.refused, deliveries: latencies.length, expected, latencies, cpuMicros: after - before, threads };
}

/** Sends `total` presses at `rate` per second in 10 ms ticks; resolves when all are answered. */
async function sendPresses({ server, kind, accounts, rate, total, prefix, sentAt }) {
  let sent = 0;
  let refused = 0;
  const pending = [];
  const tickMs = 10;
  const perTick = rate / (1000 / tickMs);
  const startedAt = performance.now();
  await new Promise((resolve) => {
    const tick = () => {
      const due = Math.min(total, Math.floor(((performance.now() - startedAt) / tickMs) * perTick));
      while (sent < due) {
        const n = sent % accounts;
        const requestId = `${prefix}${sent}`;
        const { path, headers, body } = pressRequest[kind](n, requestId);
        sentAt?.set(requestId, performance.now());
        pending.push(
          send('POST', server.port, path, headers, body).then(
            (status) => status !== 202 && refused++,
            () => refused++,
          ),
        );
        sent++;
      }
      if (sent >= total) {
        clearInterval(timer);
        resolve();
      }
    };
    const timer = setInterval(tick, tickMs);
    if (total === 0) tick();
  });
  await Promise.all(pending);
  return { sent, refused };
}

/** Polls `done` every 50 ms for up to 5 s (deliveries still in flight). */
async function waitFor(done) {
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
}
