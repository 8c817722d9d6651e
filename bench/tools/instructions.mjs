// Diagnostic: instructions per request or press of each server under callgrind, and their ratio.
import autocannon from 'autocannon';
import { countInstructions, hasCallgrind, isCollectorOrCompiler } from '../lib/callgrind.mjs';
import { send, publishHeaders } from '../lib/http.mjs';
import { activityBody, widgetBody } from '../lib/payloads.mjs';
import { pressRequest } from '../lib/press-load.mjs';
import { pinLoadGenerator } from '../lib/process.mjs';
import { openStreams } from '../lib/sse-clients.mjs';
import { certificates, startReceiver, webhookEnv } from '../lib/webhook-receiver.mjs';
import { commandLine, outputDirectory } from '../lib/cli.mjs';

const { positionals, values } = commandLine(
  `
Usage: node bench/tools/instructions.mjs [P1|P1H|P1F|P3|S2|W1] [--top N] [--out DIR]

Runs the scenario's baseline and Tilecast servers in turn under valgrind's callgrind,
warms each up, then counts the instructions it runs per unit of work, without the garbage
collector's and the optimizing compiler's (their timing, not their amount, varies from run
to run), and prints both counts and their ratio. Counts do not depend on what else the
machine does, so they judge a change to a hot path where timed runs are too noisy.

  P1   per PATCH /widget (2,000 counted)                           about a minute
  P1H  P1 through the Fetch adapter in Hono vs a Hono route          about a minute
  P1F  P1 through the Fastify plugin vs a Fastify route              about a minute
  P3   per PATCH /activity (2,000 counted)                         about a minute
  S2   per press with 4 deliveries (250 accounts x 4 streams)      about three minutes
  W1   per press and its signed webhook (200 accounts)             about twenty minutes
       (default P1)

  --top N   also list the N functions that add the most per unit (JIT code named from
            node --perf-basic-prof)
  --out DIR keep callgrind's output and V8's perf map there, as baseline.callgrind.out,
            baseline.perf.map, tilecast.callgrind.out, tilecast.perf.map (callers of a
            function: callgrind_annotate --inclusive=yes --tree=caller FILE; JIT code
            appears as addresses, named by the perf map)

Needs valgrind with callgrind_control and callgrind_annotate (Debian: valgrind).
Without --out, callgrind's output goes to a temporary directory removed afterwards.
`,
  { top: { type: 'string' }, out: { type: 'string' } },
);
const id = (positionals[0] ?? 'P1').toUpperCase();
const top = Number(values.top ?? 0);
if (!Number.isInteger(top) || top < 0) {
  console.error('--top takes a whole number');
  process.exit(2);
}

pinLoadGenerator(import.meta.url);

if (!hasCallgrind) {
  console.error('valgrind (with callgrind_control) is not installed: apt-get install valgrind');
  process.exit(2);
}

/** Per scenario: the two servers and how one unit of work (`count` of them) is driven. */
const setups = {
  P1: () => publishSetup('/widget/lights', widgetBody(), 'widget'),
  P1H: () => publishSetup('/widget/lights', widgetBody(), 'widget', { script: 'baselines/publish-hono.mjs', args: [] }, 'fetch'),
  P1F: () => publishSetup('/widget/lights', widgetBody(), 'widget', { script: 'baselines/publish-fastify.mjs', args: [] }, 'fastify'),
  P3: () => publishSetup('/activity/order', activityBody(), 'activity'),
  S2: () => pressSetup(250),
  W1: () => webhookSetup(200),
};
const setup = setups[id]?.();
if (setup === undefined) {
  console.error(`unknown scenario ${id}; known: ${Object.keys(setups).join(', ')}`);
  process.exit(2);
}

const keepIn = values.out === undefined ? undefined : outputDirectory(values.out, 'tilecast-instructions');
const keep = (name) => (keepIn === undefined ? undefined : { dir: keepIn, name });
const baseline = await countInstructions(
  setup.baseline.script,
  setup.baseline.args,
  (handles) => setup.drive('baseline', handles),
  setup.baseline.env,
  keep('baseline'),
);
const tilecast = await countInstructions(
  setup.project.script,
  setup.project.args,
  (handles) => setup.drive('tilecast', handles),
  setup.project.env,
  keep('tilecast'),
);
await setup.close?.();
const sum = (costs, keep) => [...costs].reduce((total, [name, n]) => (keep(name) ? total + n : total), 0);
const perUnit = (costs) => sum(costs, (name) => !isCollectorOrCompiler(name)) / setup.count;
const [b, t] = [perUnit(baseline), perUnit(tilecast)];
console.log(`${id}: instructions per ${setup.unit}, without the collector and the optimizing compiler`);
console.log(`  baseline  ${Math.round(b).toLocaleString('en')}`);
console.log(`  tilecast  ${Math.round(t).toLocaleString('en')}  (${(t / b).toFixed(3)}×, ${Math.round(t - b).toLocaleString('en')} more)`);
console.log(
  `  (collector and compiler: baseline ${Math.round(sum(baseline, isCollectorOrCompiler) / setup.count)}, tilecast ${Math.round(sum(tilecast, isCollectorOrCompiler) / setup.count)})`,
);
if (keepIn !== undefined) console.log(`  (callgrind output and perf maps in ${keepIn})`);
if (top > 0) {
  const names = new Set([...baseline.keys(), ...tilecast.keys()].filter((name) => !isCollectorOrCompiler(name)));
  const rows = [...names].map((name) => ({ name, added: ((tilecast.get(name) ?? 0) - (baseline.get(name) ?? 0)) / setup.count }));
  console.log(`\n  added per ${setup.unit}  function`);
  for (const { name, added } of rows.sort((x, y) => y.added - x.added).slice(0, top))
    console.log(`  ${String(Math.round(added)).padStart(8)}  ${name.slice(0, 110)}`);
}

function publishSetup(path, body, kind, baseline = { script: 'baselines/publish-node-http.mjs', args: [kind] }, adapter = 'node-http') {
  const count = 2_000;
  return {
    unit: 'request',
    count,
    baseline,
    project: { script: 'servers/tilecast.mjs', args: [adapter] },
    async drive(_which, { server, measure, collectGarbage }) {
      const headers = publishHeaders(server);
      const load = (amount) =>
        checked(autocannon({ url: `http://127.0.0.1:${server.port}${path}`, method: 'PATCH', headers, body, connections: 10, amount, timeout: 60 }), amount);
      await load(4_000); // the JIT: tiers up
      await collectGarbage();
      await load(8_000); // code a full collection threw away, compiled again (slowly, under valgrind)
      await measure(() => load(count));
    },
  };
}

async function checked(run, amount) {
  const result = await run;
  if (result.non2xx > 0 || result.errors > 0 || result.requests.total !== amount) throw new Error(`load: ${result.non2xx} non-2xx, ${result.errors} errors`);
}

/**
 * Sends presses `from` … `from + size - 1` (round-robin over `accounts`, request ids
 * `<prefix><n>`) at once and checks that every one was accepted (202).
 */
async function sendPressBatch(which, port, accounts, prefix, from, size) {
  const batch = Array.from({ length: size }, (_, k) => {
    const { path, headers, body } = pressRequest[which]((from + k) % accounts, `${prefix}${from + k}`);
    return send('POST', port, path, headers, body);
  });
  const statuses = await Promise.all(batch);
  if (statuses.some((status) => status !== 202)) throw new Error(`${which}: a press was answered ${statuses.find((s) => s !== 202)}`);
}

/** S2 in small: 250 accounts × 4 streams; presses round-robin over the accounts, 20 at a time. */
function pressSetup(accounts) {
  const count = 1_000;
  return {
    unit: 'press (4 deliveries)',
    count,
    baseline: { script: 'baselines/sse-node-http.mjs', args: [String(accounts)] },
    project: { script: 'servers/tilecast-streams.mjs', args: [String(accounts)] },
    async drive(which, { server, measure, collectGarbage }) {
      let delivered = 0;
      const streams = await openStreams({
        port: server.port,
        count: accounts * 4,
        path: '/events',
        headersFor: (i) => ({ authorization: `Token tok_bench_${Math.floor(i / 4)}` }),
        onData: () => delivered++,
      });
      const presses = async (prefix, total) => {
        const expected = delivered + total * 4;
        for (let i = 0; i < total; i += 20) await sendPressBatch(which, server.port, accounts, prefix, i, Math.min(20, total - i));
        for (let waited = 0; delivered < expected; waited += 50) {
          if (waited > 60_000) throw new Error(`${which}: ${expected - delivered} deliveries missing`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      try {
        // At most 6 presses per phone and widget per phase, and 8 s between phases for
        // the buckets to refill (a burst of 8, then 1 a second): no press is refused.
        const refill = () => new Promise((resolve) => setTimeout(resolve, 8_000));
        // Under valgrind the optimizing compiler's jobs finish late: 6,000 presses before
        // the count (the press path is longer than a PATCH's).
        for (const prefix of ['w', 'x', 'y', 'z']) {
          await presses(prefix, 1_500);
          if (prefix === 'w') await collectGarbage();
          await refill();
        }
        await measure(() => presses('r', count));
      } finally {
        streams.close();
      }
    },
  };
}

/**
 * W1 in small: presses round-robin over `accounts` accounts, each delivered as a signed
 * webhook to a local HTTPS receiver (in this process); a press counts once its webhook
 * arrived. Its kept-alive connections are open before the count, as in a running server.
 */
function webhookSetup(accounts) {
  const count = 400;
  const tls = certificates();
  let arrived = 0;
  const receiving = startReceiver(tls, () => arrived++);
  const env = webhookEnv(tls);
  return {
    unit: 'press (one webhook)',
    count,
    baseline: { script: 'baselines/webhook-forwarder.mjs', args: [], env },
    project: { script: 'servers/tilecast-streams.mjs', args: [String(accounts)], env },
    close: async () => (await receiving).close(),
    async drive(which, { server, measure, collectGarbage }) {
      await receiving;
      // Five at a time, each batch's webhooks in before the next is sent: under valgrind a
      // longer queue outlasts the 2 s attempt deadline and the events' 5 s lifetime.
      const presses = async (prefix, total) => {
        for (let i = 0; i < total; i += 5) {
          const size = Math.min(5, total - i);
          const expected = arrived + size;
          await sendPressBatch(which, server.port, accounts, prefix, i, size);
          for (let waited = 0; arrived < expected; waited += 5) {
            if (waited > 30_000) throw new Error(`${which}: ${expected - arrived} webhooks missing`);
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
        }
      };
      // As in S2: at most 2 presses per phone and widget per phase, then 8 s for the
      // rate-limit buckets to refill, so that no press is refused.
      const refill = () => new Promise((resolve) => setTimeout(resolve, 8_000));
      // Eight phases first: the press and delivery paths run once per press, and under
      // valgrind the optimizing compiler is slow to take them up.
      for (const prefix of ['s', 't', 'u', 'v', 'w', 'x', 'y', 'z']) {
        await presses(prefix, count);
        if (prefix === 's') await collectGarbage();
        await refill();
      }
      await measure(() => presses('r', count));
    },
  };
}
