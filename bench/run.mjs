// `npm run bench [-- --quick] [P1 P2 ...]`: runs the scenarios, prints medians, ratios and
// PASS/FAIL, and writes bench/results/<id>.json. The load generator (this process) and
// the servers are pinned to cores of their own when taskset exists (lib/cpus.mjs:
// BENCH_SERVER_CPUS, BENCH_LOAD_CPUS).
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describeLayout } from './lib/cpus.mjs';
import { LAYOUT, hasTaskset, pinLoadGenerator } from './lib/process.mjs';
import { scenarios } from './scenarios/index.mjs';

pinLoadGenerator(import.meta.url);

const args = process.argv.slice(2);
const quick = args.includes('--quick');
const wanted = args.filter((arg) => !arg.startsWith('--')).map((id) => id.toUpperCase());
const unknown = wanted.filter((id) => !scenarios.some((s) => s.id === id));
if (unknown.length > 0) {
  console.error(`unknown scenario ${unknown.join(', ')}; known: ${scenarios.map((s) => s.id).join(', ')}`);
  process.exit(2);
}
const selected = wanted.length > 0 ? scenarios.filter((s) => wanted.includes(s.id)) : scenarios;

const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  pinned: hasTaskset,
  layout: hasTaskset ? { server: LAYOUT.server, load: LAYOUT.load, helper: LAYOUT.helper } : null,
};
console.log(
  `Tilecast benchmarks${quick ? ' (quick: smoke figures only)' : ''} on ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}${hasTaskset ? `; ${describeLayout(LAYOUT)}` : ', not pinned (no taskset)'}\n`,
);

const resultsDir = fileURLToPath(new URL('./results/', import.meta.url));
mkdirSync(resultsDir, { recursive: true });
let failed = 0;
for (const scenario of selected) {
  console.log(`${scenario.id}  ${scenario.title}`);
  let outcome;
  try {
    outcome = await scenario.run({ quick });
  } catch (error) {
    outcome = { figures: {}, checks: [{ name: 'run', value: String(error?.message ?? error), target: 'completes', pass: false }] };
  }
  for (const [name, value] of Object.entries(outcome.figures)) console.log(`    ${name.padEnd(42)} ${value}`);
  for (const check of outcome.checks) {
    console.log(`    ${check.pass ? 'PASS' : 'FAIL'}  ${check.name.padEnd(36)} ${String(check.value).padEnd(14)} target ${check.target}`);
    if (!check.pass) failed++;
  }
  console.log('');
  const record = { id: scenario.id, title: scenario.title, quick, date: new Date().toISOString(), machine, ...outcome };
  writeFileSync(`${resultsDir}${scenario.id}${quick ? '.quick' : ''}.json`, `${JSON.stringify(record, null, 2)}\n`);
}
console.log(failed === 0 ? 'all targets met' : `${failed} target(s) missed`);
process.exit(failed === 0 ? 0 : 1);
