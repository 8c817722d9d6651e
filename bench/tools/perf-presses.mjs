// Diagnostic: where Tilecast's CPU under the S2 press load exceeds the baseline's, by Linux perf.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { commandLine, outputDirectory } from '../lib/cli.mjs';
import { runPressLoad } from '../lib/press-load.mjs';
import { pinLoadGenerator, startServer } from '../lib/process.mjs';

const { positionals, values } = commandLine(
  `
Usage: node bench/tools/perf-presses.mjs [--out DIR] [seconds]

Runs the S2 press load (2,500 accounts x 4 open streams, 1,000 presses a second, 5 s of
warm-up) against the baseline and then Tilecast, and records each server with Linux perf
(cpu-clock at 1,999 Hz, about 0.5 ms of CPU per sample; JIT frames named through
--perf-basic-prof-only-functions) over the measured window. Prints CPU per delivered
event, then where Tilecast's samples exceed the baseline's: by binary (kernel, node,
JIT code, libc), by kind of work (Map lookups, megamorphic access, collection, ...) and by
symbol. Both windows hold the same presses, so sample counts compare directly. Needs
perf (Debian: linux-perf) and permission to record another process. About two minutes.

  seconds     measured seconds per server (default 10)
  --out DIR   keep the recordings there (baseline.data, tilecast.data); without it they
              go to a new temporary directory that is removed at the end
`,
  { out: { type: 'string' } },
);
if (spawnSync('perf', ['--version']).status !== 0) {
  console.error('perf-presses: needs Linux perf (Debian: linux-perf)');
  process.exit(1);
}
pinLoadGenerator(import.meta.url);

const seconds = Number(positionals[0] ?? 10);
const accounts = 2500;
const dir = outputDirectory(values.out, 'tilecast-perf');

const servers = { baseline: 'baselines/sse-node-http.mjs', tilecast: 'servers/tilecast-streams.mjs' };
const samples = {};
for (const [kind, script] of Object.entries(servers)) {
  const server = await startServer(script, { args: [String(accounts)], nodeArgs: ['--perf-basic-prof-only-functions'] });
  const data = join(dir, `${kind}.data`);
  let recorded;
  const result = await runPressLoad({
    server,
    kind,
    accounts,
    rate: 1000,
    seconds,
    localAddress: `127.0.0.${100 + Math.floor(Math.random() * 150)}`,
    // The window of the measured presses, less a second for the last to arrive.
    onMeasuring: () => {
      const perf = spawn('perf', ['record', '-q', '-F', '1999', '-e', 'cpu-clock', '-p', String(server.pid), '-o', data, '--', 'sleep', String(seconds - 1)], {
        stdio: 'ignore',
      });
      recorded = new Promise((resolve) => perf.once('exit', resolve));
    },
  });
  await recorded;
  await server.stop();
  console.log(
    `${kind}: ${result.deliveries} of ${result.expected} events delivered, ${(result.cpuMicros / result.deliveries).toFixed(2)} µs of server CPU per delivered event`,
  );
  samples[kind] = readSymbols(data);
}
report(samples.tilecast, samples.baseline);
if (values.out === undefined) rmSync(dir, { recursive: true, force: true });
else console.log(`\nrecordings in ${dir}`);

/** Samples per [binary, symbol] of a perf recording (self time). */
function readSymbols(data) {
  const out = spawnSync('perf', ['report', '-i', data, '--no-children', '--sort', 'dso,sym', '-n', '-g', 'none', '--stdio'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const rows = [];
  for (const line of out.stdout.split('\n')) {
    const match = /^\s+[\d.]+%\s+(\d+)\s+(\[JIT\] tid \d+|\S+)\s+\[(.)\]\s+(.*)$/.exec(line);
    if (match) rows.push({ samples: Number(match[1]), dso: binary(match[2]), symbol: tidy(match[4]) });
  }
  return rows;
}

function binary(dso) {
  if (dso.startsWith('[kernel')) return 'kernel';
  if (dso.startsWith('[JIT]') || dso.startsWith('perf-')) return 'JIT code';
  if (dso === 'node') return 'node';
  return dso.startsWith('libc') ? 'libc' : 'other';
}

/** Names without addresses or the checkout's path, so both servers' names match. */
function tidy(symbol) {
  return symbol
    .replace(/file:\/\/\/\S*?\/(packages|bench)\//, '$1/')
    .replace(/:\d+:\d+$/, '')
    .trim();
}

/** What a symbol of node's own binary does, roughly. */
function kindOf({ dso, symbol }) {
  if (dso !== 'node') return dso;
  if (/FindOrderedHashMapEntry|MapPrototype|StringEqual|ComputeAndSetRawHash|OrderedHashTable/.test(symbol))
    return 'Map lookups (with key hashing and comparison)';
  if (/Megamorphic/.test(symbol)) return 'megamorphic property access';
  if (/Scaveng|MarkCompact|Sweep|Evacuat|Heap::|ConcurrentMarking/.test(symbol)) return 'garbage collection';
  if (/compiler::|Compile|Maglev|Turbofan/i.test(symbol)) return 'compilation';
  if (/StringTable|Internalize/.test(symbol)) return 'string internalisation (JSON keys)';
  if (/Json/.test(symbol)) return 'JSON';
  if (symbol.startsWith('Builtins_')) return 'other builtins';
  if (symbol.startsWith('node::') || /llhttp|Parser/.test(symbol)) return "node's C++ (HTTP parser, streams)";
  return 'other V8 runtime';
}

function report(tilecast, baseline) {
  const sum = (rows, key) => rows.reduce((totals, row) => totals.set(key(row), (totals.get(key(row)) ?? 0) + row.samples), new Map());
  const table = (title, t, b, limit) => {
    console.log(`\n${title}`.padEnd(72) + 'tilecast  baseline  difference');
    const names = [...new Set([...t.keys(), ...b.keys()])].sort((x, y) => (t.get(y) ?? 0) - (b.get(y) ?? 0) - ((t.get(x) ?? 0) - (b.get(x) ?? 0)));
    for (const name of names.slice(0, limit)) {
      const [a, c] = [t.get(name) ?? 0, b.get(name) ?? 0];
      console.log(`  ${name.slice(0, 68).padEnd(68)} ${String(a).padStart(8)} ${String(c).padStart(9)} ${`${a - c >= 0 ? '+' : ''}${a - c}`.padStart(11)}`);
    }
  };
  const total = (rows) => rows.reduce((n, row) => n + row.samples, 0);
  console.log(`\nsamples: tilecast ${total(tilecast)}, baseline ${total(baseline)} (${(total(tilecast) / total(baseline)).toFixed(2)}×)`);
  table(
    'by binary',
    sum(tilecast, (row) => row.dso),
    sum(baseline, (row) => row.dso),
    8,
  );
  table('by kind of work', sum(tilecast, kindOf), sum(baseline, kindOf), 14);
  table(
    'by symbol (largest differences)',
    sum(tilecast, (row) => row.symbol),
    sum(baseline, (row) => row.symbol),
    30,
  );
}
