import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { send } from '../lib/http.mjs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hammer } from '../lib/load.mjs';
import { widgetBody } from '../lib/payloads.mjs';
import { startServer } from '../lib/process.mjs';
import { WARMUP_SECONDS } from '../lib/throughput.mjs';
import { median, percentile, round } from '../lib/stats.mjs';

const SECRET = 'whsec_bench_0123456789';

/** A CA and a certificate for localhost, made with openssl for this run. */
function certificates() {
  const dir = mkdtempSync(join(tmpdir(), 'tilecast-bench-tls-'));
  const file = (name) => join(dir, name);
  const run = (...args) => execFileSync('openssl', args, { stdio: 'pipe' });
  try {
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('ca.key'), '-out', file('ca.pem'), '-days', '1', '-subj', '/CN=Bench CA');
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', file('key.pem'), '-out', file('csr.pem'), '-subj', '/CN=localhost');
    writeFileSync(file('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n');
    run('x509', '-req', '-in', file('csr.pem'), '-CA', file('ca.pem'), '-CAkey', file('ca.key'), '-CAcreateserial', '-out', file('cert.pem'), '-days', '1', '-extfile', file('ext.cnf'));
    return { ca: readFileSync(file('ca.pem'), 'utf8'), key: readFileSync(file('key.pem'), 'utf8'), cert: readFileSync(file('cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The receiver on 127.0.0.1:443 (the only port webhooks may use): records when each press arrives. */
async function startReceiver(tls, onArrival) {
  const server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const now = performance.now();
      const requestId = /"request_id":"([^"]+)"/.exec(body)?.[1];
      const signed = typeof req.headers['x-svc-signature'] === 'string' && typeof req.headers['idempotency-key'] === 'string';
      if (requestId && signed) onArrival(requestId, now);
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  let handshakes = 0;
  server.on('secureConnection', () => handshakes++);
  await new Promise((resolve, reject) => server.once('error', reject).listen(443, '127.0.0.1', resolve));
  return { handshakes: () => handshakes, close: () => new Promise((resolve) => (server.closeAllConnections(), server.close(resolve))) };
}


async function webhookRun(kind, tls, { accounts, rate, seconds }) {
  const sentAt = new Map();
  const latencies = [];
  const receiver = await startReceiver(tls, (requestId, now) => {
    const start = sentAt.get(requestId);
    if (start !== undefined) latencies.push(now - start);
  });
  const env = { BENCH_WEBHOOK_URL: 'https://localhost/hook', BENCH_WEBHOOK_SECRET: SECRET, BENCH_WEBHOOK_CA: tls.ca };
  const server = kind === 'tilecast' ? await startServer('servers/tilecast-streams.mjs', { args: [String(accounts)], env }) : await startServer('baselines/webhook-forwarder.mjs', { env });
  try {
    // One second of warm-up (connections, JIT) is sent first and not measured.
    const warmup = rate;
    const total = rate * seconds + warmup;
    const pending = [];
    let refused = 0;
    for (let i = 0; i < total; i++) {
      const n = i % accounts;
      const requestId = `w${i}`;
      const [path, headers, body] =
        kind === 'tilecast'
          ? ['/device/presses', { authorization: `Device dev_bench_${n}` }, JSON.stringify({ owner: `bench-${n}`, slug: 'panel', request_id: requestId, action: 'go' })]
          : ['/press', {}, JSON.stringify({ account: n, request_id: requestId })];
      if (i >= warmup) sentAt.set(requestId, performance.now());
      pending.push(send('POST', server.port, path, headers, body).then((status) => status === 202 || refused++));
      await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
    }
    await Promise.all(pending);
    const deadline = Date.now() + 5_000;
    while (latencies.length < total - warmup && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    if (refused > 0) throw new Error(`${kind}: ${refused} presses refused`);
    return { latencies, lost: total - warmup - latencies.length };
  } finally {
    await server.stop();
    await receiver.close();
  }
}

/**
 * Does webhook delivery slow the publisher API down? `PATCH /widget` throughput of the
 * bare P1 baseline, of one Tilecast server alone, and of the same server while 100
 * presses per second are delivered as webhooks: measured in turn, `runs` times each, and
 * compared by their medians (validation is in the path, so several runs, as for P1).
 * Each run has new server processes, for the reason given in `lib/throughput.mjs`.
 */
async function publishUnderWebhooks(tls, { accounts, rate, seconds, runs }) {
  const env = { BENCH_WEBHOOK_URL: 'https://localhost/hook', BENCH_WEBHOOK_SECRET: SECRET, BENCH_WEBHOOK_CA: tls.ca };
  const publish = (server, headers, duration = seconds) =>
    hammer({ url: `${server.url}/widget/panel`, headers: { 'content-type': 'application/json', ...headers }, body: widgetBody(), duration });
  const receiver = await startReceiver(tls, () => {});
  const owner = { authorization: 'Token tok_bench_0' };
  const busy = async (target, work) => {
    const before = await target.cpu();
    const started = performance.now();
    const result = await work();
    const after = await target.cpu();
    return { ...result, serverCpu: (after - before) / 1000 / (performance.now() - started) };
  };
  let i = 0;
  const underPresses = async (server, work) => {
    let pressing = true;
    const presses = (async () => {
      while (pressing) {
        const n = 1 + (i % (accounts - 1)); // account 0 is the publisher's
        const body = JSON.stringify({ owner: `bench-${n}`, slug: 'panel', request_id: `p${i++}`, action: 'go' });
        void send('POST', server.port, '/device/presses', { authorization: `Device dev_bench_${n}` }, body).catch(() => {});
        await new Promise((resolve) => setTimeout(resolve, 1000 / rate));
      }
    })();
    try {
      return await work();
    } finally {
      pressing = false;
      await presses;
    }
  };
  const samples = { bare: [], alone: [], loaded: [] };
  try {
    for (let run = 0; run < runs; run++) {
      const bare = await startServer('baselines/publish-node-http.mjs', { args: ['widget'] });
      const server = await startServer('servers/tilecast-streams.mjs', { args: [String(accounts)], env });
      try {
        await publish(bare, {}, WARMUP_SECONDS); // JIT, connections
        await publish(server, owner, WARMUP_SECONDS);
        await underPresses(server, () => publish(server, owner, 1)); // the delivery path, and the receiver's connections
        samples.bare.push(await busy(bare, () => publish(bare, {})));
        samples.alone.push(await busy(server, () => publish(server, owner)));
        samples.loaded.push(await busy(server, () => underPresses(server, () => publish(server, owner))));
      } finally {
        await server.stop();
        await bare.stop();
      }
    }
    const rateOf = (list) => median(list.map((sample) => sample.requestsPerSecond));
    const cpuOf = (list) => median(list.map((sample) => sample.serverCpu));
    return {
      bareRate: rateOf(samples.bare),
      alone: rateOf(samples.alone),
      loaded: rateOf(samples.loaded),
      presses: i,
      handshakes: receiver.handshakes(),
      serverCpuAlone: cpuOf(samples.alone),
      serverCpuLoaded: cpuOf(samples.loaded),
    };
  } finally {
    await receiver.close();
  }
}

export const w1 = {
  id: 'W1',
  title: 'press → signed webhook at a local HTTPS receiver on port 443, 100 presses per second',
  async run({ quick }) {
    const tls = certificates();
    const load = { accounts: 200, rate: 100, seconds: quick ? 3 : 10 };
    const baseline = await webhookRun('baseline', tls, load);
    const tilecast = await webhookRun('tilecast', tls, load);
    const publishing = await publishUnderWebhooks(tls, { ...load, seconds: quick ? 2 : 5, runs: quick ? 1 : 5 });
    const isolation = publishing.loaded / publishing.alone;
    const versusBare = publishing.loaded / publishing.bareRate;
    const p99 = (run) => percentile(run.latencies, 99);
    const limit = 1.5 * p99(baseline) + 2;
    return {
      figures: {
        'baseline p50 / p99 ms': `${round(percentile(baseline.latencies, 50), 2)} / ${round(p99(baseline), 2)}`,
        'tilecast p50 / p99 ms': `${round(percentile(tilecast.latencies, 50), 2)} / ${round(p99(tilecast), 2)}`,
        'tilecast p90 / p95 / max ms': `${round(percentile(tilecast.latencies, 90), 2)} / ${round(percentile(tilecast.latencies, 95), 2)} / ${round(percentile(tilecast.latencies, 100), 2)}`,
        'PATCH req/s: bare / tilecast alone / under W1': `${round(publishing.bareRate, 0)} / ${round(publishing.alone, 0)} / ${round(publishing.loaded, 0)}`,
        'presses / TLS handshakes under W1': `${publishing.presses} / ${publishing.handshakes}`,
        'server CPU busy: alone / under W1': `${round(publishing.serverCpuAlone * 100, 0)} % / ${round(publishing.serverCpuLoaded * 100, 0)} %`,
      },
      checks: [
        { name: 'every press delivered', value: `${tilecast.lost} lost`, target: '0 lost', pass: tilecast.lost === 0 },
        { name: 'p99 latency', value: `${round(p99(tilecast), 2)} ms`, target: `<= 1.5× baseline + 2 ms (${round(limit, 2)} ms)`, pass: p99(tilecast) <= limit },
        { name: 'P1 under W1 vs P1 alone', value: `${round(isolation * 100, 1)} %`, target: '>= 85 %', pass: isolation >= 0.85 },
        { name: 'P1 under W1 vs bare baseline', value: `${round(versusBare * 100, 1)} %`, target: '>= 85 %', pass: versusBare >= 0.85 },
      ],
    };
  },
};
