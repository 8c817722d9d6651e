// Which cores each part of a bench run gets (with taskset): the measured servers first, then
// the runner and its load generator, then a core for an unmeasured helper (the APNs double)
// when the machine has one to spare. BENCH_SERVER_CPUS and BENCH_LOAD_CPUS (1 each by
// default) say how many cores the servers and the load get, so that a machine with more
// cores can be used as it is.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** `0-2,5` → [0, 1, 2, 5] (the kernel's and taskset's CPU list form). */
export function parseCpuList(text) {
  const ids = [];
  for (const part of text.trim().split(',')) {
    const [from, to = from] = part.split('-').map(Number);
    if (!Number.isInteger(from) || !Number.isInteger(to) || to < from) throw new Error(`not a CPU list: ${text}`);
    for (let id = from; id <= to; id++) ids.push(id);
  }
  return ids;
}

/** The CPUs this run may use: the first process's affinity, handed down to the re-executed runner (pinLoadGenerator). */
function allowedCpus() {
  const inherited = process.env.TILECAST_BENCH_ALLOWED_CPUS;
  if (inherited) return parseCpuList(inherited);
  try {
    const line = /^Cpus_allowed_list:\s*(\S+)$/m.exec(readFileSync('/proc/self/status', 'utf8'));
    if (line !== null) return parseCpuList(line[1]);
  } catch {
    // Not Linux: every CPU the system reports.
  }
  return cpus().map((_, id) => id);
}

function coreCount(name) {
  const value = process.env[name];
  if (value === undefined || value === '') return 1;
  if (!/^[1-9]\d*$/.test(value)) throw new Error(`${name} takes a whole number of cores, not ${JSON.stringify(value)}`);
  return Number(value);
}

/**
 * The layout of a run: `server`, `load` and `helper` as taskset CPU lists, their counts,
 * and the CPUs left over (`spare`). Throws when the servers and the load together want more
 * cores than the run may use.
 */
export function cpuLayout(allowed = allowedCpus(), serverCount = coreCount('BENCH_SERVER_CPUS'), loadCount = coreCount('BENCH_LOAD_CPUS')) {
  if (serverCount + loadCount > allowed.length)
    throw new Error(`BENCH_SERVER_CPUS (${serverCount}) and BENCH_LOAD_CPUS (${loadCount}) want more cores than the ${allowed.length} this run may use`);
  const server = allowed.slice(0, serverCount);
  const load = allowed.slice(serverCount, serverCount + loadCount);
  const rest = allowed.slice(serverCount + loadCount);
  const helper = rest.length > 0 ? rest.slice(0, 1) : load;
  return {
    allowed: allowed.join(','),
    cpuCount: allowed.length,
    server: server.join(','),
    serverCount,
    load: load.join(','),
    loadCount,
    helper: helper.join(','),
    /** Cores no one is given: a second sender core for A1 comes from here. */
    spare: rest.slice(1),
  };
}

/**
 * `count` cores for a sender that gets more than the other servers (A1's APNs sender): the
 * server cores, then spare ones, never the load's or the helper's. `undefined` when the
 * machine has too few.
 */
export function senderCpus(layout, count) {
  const cores = [...layout.server.split(','), ...layout.spare.map(String)].slice(0, count);
  return cores.length === count ? cores.join(',') : undefined;
}

/** One line for the run's header: which cores do what. */
export function describeLayout(layout) {
  const helper = layout.helper === layout.load ? 'the APNs double with the load' : `the APNs double on ${layout.helper}`;
  return `servers on core(s) ${layout.server}, runner and load on ${layout.load}, ${helper}`;
}
