// What bench/tools/instructions.mjs and bench/tools/cost-check.mjs count under callgrind:
// per scenario, the baseline and Tilecast servers and how one unit of work is driven
// (warm-up first, then `measure` around the counted units).
import autocannon from 'autocannon';
import { countInstructions, countParts, isCollectorOrCompiler } from './callgrind.mjs';
import { FAULTY_BODY_SIZE, refusedRequests, validMapOfSize } from './faulty-bodies.mjs';
import { send, publishHeaders } from './http.mjs';
import { activityBody, widgetBody } from './payloads.mjs';
import { pressRequest } from './press-load.mjs';
import { openStreams } from './sse-clients.mjs';
import { certificates, startReceiver, webhookEnv } from './webhook-receiver.mjs';

/**
 * A `PATCH` per request (P1, P1H, P1F, P3): `warmup` requests (the JIT tiers up), a full
 * collection, `rewarm` more (code the collection threw away, compiled again, slowly under
 * valgrind), then `count` counted, over `connections` connections (with one, each request
 * is read and answered alone, whatever the machine's load).
 */
export function publishSetup(
  path,
  body,
  kind,
  {
    baseline = { script: 'baselines/publish-node-http.mjs', args: [kind] },
    adapter = 'node-http',
    count = 2_000,
    warmup = 4_000,
    rewarm = 8_000,
    connections = 10,
  } = {},
) {
  return {
    unit: 'request',
    count,
    baseline,
    project: { script: 'servers/tilecast.mjs', args: [adapter] },
    async drive(_which, { server, measure, collectGarbage }) {
      const headers = publishHeaders(server);
      // A long per-request timeout (s): under valgrind on a busy machine, with 50 connections a
      // request can wait more than a minute behind the others.
      const load = (amount) =>
        checked(autocannon({ url: `http://127.0.0.1:${server.port}${path}`, method: 'PATCH', headers, body, connections, amount, timeout: 600 }), amount);
      await load(warmup);
      await collectGarbage();
      await load(rewarm);
      await measure(() => load(count));
    },
  };
}

/** The scenarios' `PATCH` setups by id, with `options` as for publishSetup. */
export const publishSetups = {
  P1: (options) => publishSetup('/widget/lights', widgetBody(), 'widget', options),
  P1H: (options) =>
    publishSetup('/widget/lights', widgetBody(), 'widget', { baseline: { script: 'baselines/publish-hono.mjs', args: [] }, adapter: 'fetch', ...options }),
  P1F: (options) =>
    publishSetup('/widget/lights', widgetBody(), 'widget', { baseline: { script: 'baselines/publish-fastify.mjs', args: [] }, adapter: 'fastify', ...options }),
  P3: (options) => publishSetup('/activity/order', activityBody(), 'activity', options),
};

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

/**
 * S2 in small: `accounts` accounts × 4 streams; presses round-robin over the accounts, 20
 * at a time, or with `oneByOne` each alone, sent once the one before was delivered (then
 * how many presses a read or a turn of the event loop takes does not depend on the
 * machine's load). `phases` warm-up phases of `perPhase` presses each (a full collection
 * after the first), then `count` counted. No press may be refused: at most 6 presses per phone
 * and widget per phase (`perPhase` / `accounts`; the buckets take a burst of 8, then 1 a
 * second), and a phase starts at least (its presses per account + 3) s after the one
 * before it started (the buckets refill meanwhile; under valgrind a phase is often longer).
 */
export function pressSetup({ accounts = 250, phases = 4, perPhase = 1_500, count = 1_000, oneByOne = false } = {}) {
  if (perPhase / accounts > 6 || count / accounts > 6) throw new Error('more than 6 presses per phone and widget in a phase: some would be refused');
  return {
    unit: 'press (4 deliveries)',
    count,
    baseline: { script: 'baselines/sse-node-http.mjs', args: [String(accounts)] },
    project: { script: 'servers/tilecast-streams.mjs', args: [String(accounts)] },
    async drive(which, { server, measure, collectGarbage }) {
      let delivered = 0;
      let waiting; // oneByOne: { until, resolve } for the press in flight
      const streams = await openStreams({
        port: server.port,
        count: accounts * 4,
        path: '/events',
        headersFor: (i) => ({ authorization: `Token tok_bench_${Math.floor(i / 4)}` }),
        onData: () => {
          delivered++;
          if (waiting !== undefined && delivered >= waiting.until) waiting.resolve();
        },
      });
      const deliveredOne = (press) =>
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`${which}: a press was not delivered in 30 s`)), 30_000);
          waiting = {
            until: delivered + 4,
            resolve: () => {
              clearTimeout(timer);
              waiting = undefined;
              resolve();
            },
          };
          press.catch((error) => {
            clearTimeout(timer);
            reject(error);
          });
        });
      let nextPhase = 0;
      const presses = async (prefix, total) => {
        const wait = nextPhase - Date.now(); // for the buckets to refill
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        nextPhase = Date.now() + (Math.ceil(total / accounts) + 3) * 1_000;
        const expected = delivered + total * 4;
        if (oneByOne) for (let i = 0; i < total; i++) await deliveredOne(sendPressBatch(which, server.port, accounts, prefix, i, 1));
        else for (let i = 0; i < total; i += 20) await sendPressBatch(which, server.port, accounts, prefix, i, Math.min(20, total - i));
        for (let waited = 0; delivered < expected; waited += 50) {
          if (waited > 60_000) throw new Error(`${which}: ${expected - delivered} deliveries missing`);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      };
      try {
        // Under valgrind the optimizing compiler's jobs finish late: the press path is
        // longer than a PATCH's, so it is warmed up with more units than are counted.
        for (let phase = 0; phase < phases; phase++) {
          await presses(`w${phase}-`, perPhase);
          if (phase === 0) await collectGarbage();
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
export function webhookSetup(accounts) {
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

/**
 * Counts `setup`'s units on both servers in turn with `countInstructions` and returns
 * instructions per unit without the collector's and the optimizing compiler's, for each
 * server, with the raw function costs. `keep(which)`: countInstructions' `keep` for
 * 'baseline' and 'tilecast'; `nodeArgs`: more options for both servers' node; `env`: more
 * environment for both.
 */
export async function countBoth(setup, { keep = () => undefined, nodeArgs = [], env = {} } = {}) {
  const run = (which, side) =>
    countInstructions(side.script, side.args, (handles) => setup.drive(which, handles), { ...side.env, ...env }, keep(which), nodeArgs);
  const baseline = await run('baseline', setup.baseline);
  const tilecast = await run('tilecast', setup.project);
  await setup.close?.();
  return { baseline: perUnit(baseline, setup.count), tilecast: perUnit(tilecast, setup.count), costs: { baseline, tilecast } };
}

/**
 * E1 (docs/contract/limits-and-errors.md#field-error-cost): instructions per refused
 * request of each kind in faulty-bodies.mjs (a 422) over instructions per accepted
 * request of the same size (a valid webhook map, a 200), all on one Tilecast server
 * (node-http adapter). Every request goes alone, each sent once the one before was
 * answered, and every answer's status is checked, so a count never passes on wrong
 * answers.
 *
 * Each kind is counted on its own, not round-robin in one count: the bound holds for every
 * kind, and a mean of four would let one kind go over it while the others stay under. The
 * five counts are parts of one server process (countParts), one after the other: one start
 * under valgrind instead of five or eight. `warmup` rounds of all five requests first (the
 * JIT tiers up on every path), a full collection, `rewarm` rounds more, then `count` of
 * each, the accepted ones first. Returns `{ id, baseline, tilecast, unit }` per kind
 * (`baseline`: accepting, `tilecast`: refusing; instructions per request, without the
 * collector's and the optimizing compiler's, as countBoth's).
 */
export async function countErrorCost({ warmup = 20, rewarm = 20, count = 20 } = {}, { nodeArgs = [], env = {} } = {}) {
  const accepted = { method: 'PUT', path: '/widget/lights/webhooks', body: validMapOfSize(FAULTY_BODY_SIZE), status: 200 };
  const refused = refusedRequests.map((request) => ({ ...request, status: 422 }));
  const parts = await countParts(
    'servers/tilecast.mjs',
    ['node-http'],
    async ({ server, measure, collectGarbage }) => {
      const headers = publishHeaders(server);
      const sendEach = async (requests, times) => {
        for (let i = 0; i < times; i++)
          for (const { method, path, body, status, kind } of requests) {
            const answered = await send(method, server.port, path, headers, body);
            if (answered !== status) throw new Error(`E1: ${kind ?? 'the valid webhook map'} was answered ${answered}, not ${status}`);
          }
      };
      await sendEach([accepted, ...refused], warmup);
      await collectGarbage();
      await sendEach([accepted, ...refused], rewarm);
      for (const request of [accepted, ...refused]) await measure(() => sendEach([request], count));
    },
    env,
    nodeArgs,
  );
  const [baseline, ...refusing] = parts.map((costs) => perUnit(costs, count));
  const unit = `request (${FAULTY_BODY_SIZE.toLocaleString('en')} bytes)`;
  return refused.map(({ id }, i) => ({ id: `E1.${id}`, baseline, tilecast: refusing[i], unit }));
}

/** Instructions per unit of a count's function costs, without the collector's and the optimizing compiler's. */
function perUnit(costs, units) {
  let total = 0;
  for (const [name, n] of costs) if (!isCollectorOrCompiler(name)) total += n;
  return total / units;
}
