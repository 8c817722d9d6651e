// Diagnostic: instructions per request or press of each server under callgrind, and their ratio.
import { hasCallgrind, isCollector, isCollectorOrCompiler, isCompiler } from '../lib/callgrind.mjs';
import { countBoth, pressSetup, publishSetups, webhookSetup } from '../lib/instruction-setups.mjs';
import { pinLoadGenerator } from '../lib/process.mjs';
import { commandLine, outputDirectory } from '../lib/cli.mjs';

const { positionals, values } = commandLine(
  `
Usage: node bench/tools/instructions.mjs [P1|P1H|P1F|P3|S2|W1] [--connections N] [--top N] [--out DIR]

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

  --connections N  P1, P1H, P1F, P3: requests over N connections at once (default 10; the
            bench's load uses 50, where per-request costs that grow with the requests in
            flight show)
  --top N   also list the N functions that add the most per unit (JIT code named from
            node --perf-basic-prof)
  --out DIR keep callgrind's output and V8's perf map there, as baseline.callgrind.out,
            baseline.perf.map, tilecast.callgrind.out, tilecast.perf.map (callers of a
            function: callgrind_annotate --inclusive=yes --tree=caller FILE; JIT code
            appears as addresses, named by the perf map)

Needs valgrind with callgrind_control and callgrind_annotate (Debian: valgrind).
Without --out, callgrind's output goes to a temporary directory removed afterwards.
`,
  { top: { type: 'string' }, out: { type: 'string' }, connections: { type: 'string' } },
);
const id = (positionals[0] ?? 'P1').toUpperCase();
const top = Number(values.top ?? 0);
const connections = values.connections === undefined ? undefined : Number(values.connections);
if (!Number.isInteger(top) || top < 0 || (connections !== undefined && !(Number.isInteger(connections) && connections >= 1))) {
  console.error('--top and --connections take a whole number');
  process.exit(2);
}

pinLoadGenerator(import.meta.url);

if (!hasCallgrind) {
  console.error('valgrind (with callgrind_control) is not installed: apt-get install valgrind');
  process.exit(2);
}

/** Per scenario: the two servers and how one unit of work (`count` of them) is driven. */
const setups = {
  ...Object.fromEntries(Object.entries(publishSetups).map(([key, setup]) => [key, () => setup(connections === undefined ? {} : { connections })])),
  S2: () => pressSetup(),
  W1: () => webhookSetup(200),
};
const setup = setups[id]?.();
if (setup === undefined) {
  console.error(`unknown scenario ${id}; known: ${Object.keys(setups).join(', ')}`);
  process.exit(2);
}

const keepIn = values.out === undefined ? undefined : outputDirectory(values.out, 'tilecast-instructions');
const keep = (name) => (keepIn === undefined ? undefined : { dir: keepIn, name });
const {
  baseline: b,
  tilecast: t,
  costs: { baseline, tilecast },
} = await countBoth(setup, { keep });
const sum = (costs, keep) => [...costs].reduce((total, [name, n]) => (keep(name) ? total + n : total), 0);
console.log(`${id}: instructions per ${setup.unit}, without the collector and the optimizing compiler`);
console.log(`  baseline  ${Math.round(b).toLocaleString('en')}`);
console.log(`  tilecast  ${Math.round(t).toLocaleString('en')}  (${(t / b).toFixed(3)}×, ${Math.round(t - b).toLocaleString('en')} more)`);
const per = (costs, keep) => Math.round(sum(costs, keep) / setup.count);
console.log(
  `  (collector: baseline ${per(baseline, isCollector)}, tilecast ${per(tilecast, isCollector)}; compiler: baseline ${per(baseline, isCompiler)}, tilecast ${per(tilecast, isCompiler)})`,
);
const withCollector = (own, costs) => own + sum(costs, isCollector) / setup.count;
console.log(
  `  with the collector: baseline ${Math.round(withCollector(b, baseline)).toLocaleString('en')}, tilecast ${Math.round(withCollector(t, tilecast)).toLocaleString('en')} (${(withCollector(t, tilecast) / withCollector(b, baseline)).toFixed(3)}×)`,
);
if (keepIn !== undefined) console.log(`  (callgrind output and perf maps in ${keepIn})`);
if (top > 0) {
  const names = new Set([...baseline.keys(), ...tilecast.keys()].filter((name) => !isCollectorOrCompiler(name)));
  const rows = [...names].map((name) => ({ name, added: ((tilecast.get(name) ?? 0) - (baseline.get(name) ?? 0)) / setup.count }));
  console.log(`\n  added per ${setup.unit}  function`);
  for (const { name, added } of rows.sort((x, y) => y.added - x.added).slice(0, top))
    console.log(`  ${String(Math.round(added)).padStart(8)}  ${name.slice(0, 110)}`);
}
