import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time (ms, user + system) of each thread of process `pid`, by thread name, from
 * /proc (Linux only; diagnostics). Threads of the same name are summed.
 */
export function threadCpu(pid) {
  const ticksToMs = 10; // USER_HZ is 100 on Linux
  const byName = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    const name = tid === String(pid) ? 'main' : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[11]) * ticksToMs;
    const system = Number(fields[12]) * ticksToMs;
    const entry = (byName[name] ??= { user: 0, system: 0 });
    entry.user += user;
    entry.system += system;
  }
  return byName;
}

/** `after - before` per thread name. */
export function threadCpuSince(before, after) {
  const out = {};
  for (const [name, a] of Object.entries(after)) {
    const b = before[name] ?? { user: 0, system: 0 };
    out[name] = { user: a.user - b.user, system: a.system - b.system };
  }
  return out;
}
