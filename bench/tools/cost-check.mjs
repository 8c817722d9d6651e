// CI's cost check: Tilecast's instructions per PATCH and per press against the bare
// baseline's in the same run, and per refused faulty body against per accepted valid body
// (E1), under callgrind, held to the budgets in bench/budgets.json.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hasCallgrind } from '../lib/callgrind.mjs';
import { commandLine } from '../lib/cli.mjs';
import { countBoth, countErrorCost, pressSetup, publishSetups } from '../lib/instruction-setups.mjs';
import { pinLoadGenerator } from '../lib/process.mjs';

const usage = `
Usage: node bench/tools/cost-check.mjs [P1|P3|S2|E1 …] [--runs N] [--update]
       (npm run check:cost)

Counts, under valgrind's callgrind, the instructions a bare baseline server and Tilecast
run per unit of work, without the garbage collector's and the optimizing compiler's,
and holds their ratio (Tilecast / baseline, both counted in this run) to the budget in
bench/budgets.json: a path fails when its ratio exceeds its budget by more than the
file's tolerance (10 %), or exceeds its limit where it has one (E1's 1.5, the bound of
docs/contract/limits-and-errors.md#field-error-cost). Exits 1 when a path is over budget
or limit, when valgrind is missing or when a count fails; prints one line per path.

  P1   per PATCH /widget (the switchboard widget)
  P3   per PATCH /activity (the progress activity)
  S2   per press with 4 deliveries (100 accounts x 4 streams)
  E1   per refused request of a 59 KB body full of faults (a 422) over per accepted
       request of a valid webhook map of the same size (a 200), both on one Tilecast
       server; four kinds, four lines: E1.map-keys (6,000 unknown keys in a webhook map),
       E1.activity-keys (in an activity update), E1.list-items (6,000 bad items in a
       list of at most 4), E1.headers (6,000 bad webhook headers)
       (default: all four paths, about two and a half minutes on an idle 2-core machine)

  --runs N   count each path N times (one after the other) and print every ratio and
             their spread (max / min - 1); the check uses the median
  --update   write the measured ratios (medians with --runs) into bench/budgets.json,
             with the date, the commit and the Node.js version, keeping the limits:
             only for a change whose cost is accepted on purpose (bench/README.md, "The
             cost check")

The counts are smaller than bench/tools/instructions.mjs's (shorter warm-ups, fewer
units), so the ratios are the check's own, not instructions.mjs's figures.
`;
const { positionals, values } = commandLine(usage, { runs: { type: 'string' }, update: { type: 'boolean' } });
const runs = Number(values.runs ?? 1);
if (!Number.isInteger(runs) || runs < 1) {
  console.error('--runs takes a whole number from 1');
  process.exit(2);
}

const nodeArgs = (process.env.TILECAST_COST_NODE_ARGS ?? '--single-threaded').split(' ').filter(Boolean);
const countOptions = { nodeArgs, env: { BENCH_PERIODIC: 'off' } };

/** One count of a baseline-and-Tilecast setup (a new one each count), as a path's one result. */
const both = (id, makeSetup) => async () => {
  const setup = makeSetup();
  const { baseline, tilecast } = await countBoth(setup, countOptions);
  return [{ id, baseline, tilecast, unit: setup.unit, of: 'the baseline' }];
};

/**
 * The counted paths, sized for CI; each count resolves with one result per checked ratio
 * (`{ id, baseline, tilecast, unit, of }`). V8 runs single-threaded (no concurrent compiler or
 * collector threads): under valgrind, which runs one thread at a time, background
 * compiles finish at points that vary from run to run, and so does how much of the
 * counted work ran optimized; on the main thread they happen at the same points each
 * run. Their own instructions, as the collector's, are not counted. Tilecast's servers do
 * no work on timers (BENCH_PERIODIC=off): a count takes longer on a loaded machine, and
 * more purge rounds, credential re-checks and pings would fall into it. E1's requests take
 * about 50 times a PATCH's instructions, so it counts 10 of each after 30 + 20 rounds of
 * warm-up (fewer rounds left the accepted path less optimized: bench/notes/instruction-counts.md;
 * about 30 s at load 2, up to 60 s at load 4).
 */
const paths = {
  P1: both('P1', () => publishSetups.P1({ warmup: 1_000, rewarm: 1_500, count: 500, connections: 1 })),
  P3: both('P3', () => publishSetups.P3({ warmup: 1_000, rewarm: 1_500, count: 500, connections: 1 })),
  S2: both('S2', () => pressSetup({ accounts: 100, phases: 2, perPhase: 600, count: 400, oneByOne: true })),
  E1: async () => (await countErrorCost({ warmup: 30, rewarm: 20, count: 10 }, countOptions)).map((result) => ({ ...result, of: 'accepting' })),
};
const ids = positionals.length > 0 ? positionals.map((id) => id.toUpperCase()) : Object.keys(paths);
const unknown = ids.find((id) => paths[id] === undefined);
if (unknown !== undefined) {
  console.error(`cost check: unknown path ${unknown}; known: ${Object.keys(paths).join(', ')}`);
  process.exit(2);
}

// CI must never pass without counting: no valgrind is a failure, in one line.
if (!hasCallgrind) {
  console.error('cost check FAILED: valgrind (callgrind, callgrind_control) is not installed, so nothing was counted (Debian: apt-get install valgrind)');
  process.exit(1);
}

pinLoadGenerator(import.meta.url);

const budgetFile = fileURLToPath(new URL('../budgets.json', import.meta.url));
const budgets = JSON.parse(readFileSync(budgetFile, 'utf8'));
const tolerance = budgets.tolerance;

const started = Date.now();
const measured = {};
let checked = 0;
let failed = 0;
for (const id of ids) {
  const results = new Map(); // result id → one result per run
  try {
    for (let run = 0; run < runs; run++) for (const result of await paths[id]()) results.set(result.id, [...(results.get(result.id) ?? []), result]);
  } catch (error) {
    console.log(`${id}  FAILED: the count did not complete: ${error.message}`);
    checked++;
    failed++;
    continue;
  }
  for (const [resultId, each] of results) {
    checked++;
    if (!check(resultId, each)) failed++;
  }
}
const seconds = Math.round((Date.now() - started) / 1000);

if (values.update && failed === 0) {
  const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  const at = { date: new Date().toISOString().slice(0, 10), commit, node: process.version, nodeArgs: nodeArgs.join(' ') };
  for (const [id, figures] of Object.entries(measured)) {
    const limit = budgets.paths[id]?.limit;
    budgets.paths[id] = { ...(limit === undefined ? {} : { limit }), ...figures, measured: at };
  }
  // As Biome formats it (CI checks the format): arrays of numbers on one line.
  const json = JSON.stringify(budgets, null, 2).replace(/\[\s+([\d.,\s]+?)\s+\]/g, (_, numbers) => `[${numbers.split(/,\s*/).join(', ')}]`);
  writeFileSync(budgetFile, `${json}\n`);
  console.log(`bench/budgets.json: ${Object.keys(measured).join(', ')} updated (commit it with the change that moved them)`);
}
const named = [...new Set(ids)].join(', ');
console.log(failed === 0 ? `cost check passed (${named}; ${seconds} s)` : `cost check FAILED: ${failed} of ${checked} ratios (${named}; ${seconds} s)`);
process.exit(failed === 0 ? 0 : 1);

/**
 * Prints one result's line (its median over the runs) against its budget and limit in
 * bench/budgets.json, records it for --update, and answers whether it passed.
 */
function check(id, each) {
  const ratios = each.map(({ baseline, tilecast }) => tilecast / baseline);
  const order = ratios.map((ratio, i) => [ratio, i]).sort((x, y) => x[0] - y[0]);
  const [ratio, at] = order[(ratios.length - 1) >> 1];
  const { baseline, tilecast, unit, of } = each[at];
  const counts = { baseline: Math.round(baseline), tilecast: Math.round(tilecast) };
  measured[id] = {
    ratio: round(ratio),
    ...counts,
    ...(ratios.length > 1 ? { runs: ratios.map(round), spread: round(order.at(-1)[0] / order[0][0] - 1) } : {}),
  };
  const budget = budgets.paths[id]?.ratio;
  const limit = budgets.paths[id]?.limit;
  const spread = ratios.length > 1 ? ` (runs ${ratios.map((r) => r.toFixed(4)).join(', ')}; spread ${percent(measured[id].spread)})` : '';
  const figures = `${ratio.toFixed(4)}× ${of} (${counts.tilecast.toLocaleString('en')} / ${counts.baseline.toLocaleString('en')} instructions per ${unit})${spread}`;
  const faults = [];
  if (budget !== undefined && ratio > budget * (1 + tolerance))
    faults.push(
      `is ${percent(ratio / budget - 1)} over its budget ${budget}× (limit ${(budget * (1 + tolerance)).toFixed(4)}×, +${percent(tolerance)}): a change made this path costlier`,
    );
  // A limit is a bound of its own (E1's, the contract's): it holds however the budget moves.
  if (limit !== undefined && ratio > limit) faults.push(`is over its limit ${limit}×`);
  if (faults.length > 0) {
    console.log(`${id}  FAILED: ${figures} ${faults.join(', and ')} (bench/README.md, "The cost check")`);
    return false;
  }
  const bound = limit === undefined ? '' : `, at most ${limit}×`;
  if (budget === undefined) {
    console.log(`${id}  ${figures}; no budget in bench/budgets.json${bound}`);
    return values.update === true;
  }
  console.log(`${id}  ok: ${figures}, budget ${budget}× (${signedPercent(ratio / budget - 1)}; limit +${percent(tolerance)})${bound}`);
  return true;
}

function round(x) {
  return Math.round(x * 10_000) / 10_000;
}
function percent(x) {
  return `${(x * 100).toFixed(1)} %`;
}
function signedPercent(x) {
  return `${x >= 0 ? '+' : ''}${percent(x)}`;
}
