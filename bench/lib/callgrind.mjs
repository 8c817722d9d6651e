import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from './process.mjs';

export const hasCallgrind = spawnSync('valgrind', ['--version']).status === 0 && spawnSync('callgrind_control', ['-h']).error === undefined;

/**
 * Runs a server script under valgrind's callgrind (started like every bench server, by
 * `startServer`) with counting off, hands it to `drive`,
 * which calls `measure(fn)` once around the part to count, and returns the functions'
 * instruction counts over that part. Instruction counts do not depend on what else the
 * machine is doing, so two servers compare exactly where timed runs swing by 10–30 %.
 * With `keep` (`{ dir, name }`), callgrind's output and V8's perf map are copied to
 * `<dir>/<name>.callgrind.out` and `<dir>/<name>.perf.map` for callgrind_annotate.
 * `nodeArgs`: more options for node (V8's among them).
 */
export function countInstructions(script, args, drive, env = {}, keep = undefined, nodeArgs = []) {
  return underCallgrind(script, args, drive, env, nodeArgs, false, ({ out, mapFile }) => {
    if (keep !== undefined) {
      copyFileSync(out, join(keep.dir, `${keep.name}.callgrind.out`));
      copyFileSync(mapFile, join(keep.dir, `${keep.name}.perf.map`));
    }
    return functionCosts(out, mapFile);
  });
}

/**
 * As `countInstructions`, but `drive` may call `measure(fn)` several times, one after the
 * other, and each part's counts come back on their own, in order (an array of what
 * countInstructions returns): callgrind dumps its counts after each part, which zeroes
 * them. Several parts of one server process then cost one start under valgrind, not one
 * each (bench/tools/cost-check.mjs's E1 compares five).
 */
export function countParts(script, args, drive, env = {}, nodeArgs = []) {
  return underCallgrind(script, args, drive, env, nodeArgs, true, ({ out, mapFile, parts }) =>
    Array.from({ length: parts }, (_, i) => functionCosts(`${out}.${i + 1}`, mapFile)),
  );
}

/** The server under callgrind, driven; `read({ out, mapFile, parts })` reads the counts once it exited. */
async function underCallgrind(script, args, drive, env, nodeArgs, dumpEachPart, read) {
  const outDir = mkdtempSync(join(tmpdir(), 'tilecast-callgrind-'));
  const out = join(outDir, 'callgrind.out');
  // --smc-check: V8 writes and rewrites machine code at run time. --perf-basic-prof: the
  // map from code addresses to JavaScript function names, for the report.
  const valgrind = ['valgrind', '-q', '--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file', `--callgrind-out-file=${out}`];
  const server = await startServer(script, { args, env, nodeArgs: ['--perf-basic-prof', ...nodeArgs], launcher: valgrind, readyTimeoutMs: 120_000 });
  // V8 always writes its perf map here (the path perf looks in); it is not ours to choose.
  const mapFile = `/tmp/perf-${server.pid}.map`;
  const control = (...command) => execFileSync('callgrind_control', [...command, String(server.pid)], { stdio: 'ignore' });
  let parts = 0;
  try {
    const measure = async (fn) => {
      control('-i', 'on');
      try {
        return await fn();
      } finally {
        control('-i', 'off');
        // Written to `<out>.<n>` (n from 1), the counts then start again from zero.
        if (dumpEachPart) control('-d');
        parts++;
      }
    };
    // A full collection now (the memory reading forces one) rather than inside the count.
    await drive({ server, measure, collectGarbage: () => server.stats() });
  } finally {
    await server.stop(60_000); // callgrind writes its counts as the process exits (slowly on a busy machine)
  }
  try {
    return read({ out, mapFile, parts });
  } finally {
    rmSync(outDir, { recursive: true, force: true });
    rmSync(mapFile, { force: true });
  }
}

/** Instructions per function (JavaScript functions named from V8's perf map). */
function functionCosts(out, mapFile) {
  const code = readPerfMap(mapFile);
  const report = execFileSync('callgrind_annotate', ['--threshold=100', out], { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 });
  const costs = new Map();
  let inTable = false;
  for (const line of report.split('\n')) {
    if (line.includes('file:function')) inTable = true;
    const match = inTable && /^\s*([\d,]+)\s+(?:\(\s*[\d.]+%\)\s+)?(.*)$/.exec(line);
    if (!match) continue;
    const name = functionName(match[2], code);
    costs.set(name, (costs.get(name) ?? 0) + Number(match[1].replaceAll(',', '')));
  }
  return costs;
}

function readPerfMap(mapFile) {
  const entries = readFileSync(mapFile, 'utf8')
    .split('\n')
    .map((line) => /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line))
    .filter(Boolean)
    .map(([, start, size, name]) => ({ start: parseInt(start, 16), end: parseInt(start, 16) + parseInt(size, 16), name }));
  return entries.sort((a, b) => a.start - b.start);
}

function functionName(raw, code) {
  const address = /\?\?\?:0x([0-9a-f]+)/.exec(raw);
  if (address === null)
    return raw
      .replace('???:', '')
      .replaceAll('(anonymous namespace)::', '') // else every such function is one "v8::internal::"
      .replace(/\(.*$/, '')
      .replace(/ \[.*$/, '')
      .trim();
  const at = parseInt(address[1], 16);
  let low = 0;
  let high = code.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (code[mid].start <= at) low = mid + 1;
    else high = mid;
  }
  const entry = code[low - 1];
  return entry !== undefined && at < entry.end ? entry.name.replace(/file:\/\/\S*?\/(packages|node_modules|bench)\//, '$1/') : 'JIT code (unnamed)';
}

/**
 * Collector and optimizing compiler: work whose timing, not amount, depends on the run
 * (`IterateObjectCache` is the collector's walk of the startup object cache, once per GC).
 */
export function isCollectorOrCompiler(name) {
  return isCompiler(name) || isCollector(name);
}

/** The optimizing compiler's work (Turbofan's and Maglev's). */
export function isCompiler(name) {
  return /compiler::|Turbofan|Maglev/.test(name);
}

/** The collector's work: scavenges, marking, sweeping, compaction (and the heap's bookkeeping). */
export function isCollector(name) {
  return !isCompiler(name) && /Mark|Sweep|Scaveng|Evacuat|Compact|Heap::|heap::|IterateObjectCache/.test(name);
}
