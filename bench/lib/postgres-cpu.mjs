// CPU time of the PostgreSQL server on this machine (the postmaster and every backend), read
// from /proc: A1P and A2P report it per push, since the store shares the two cores with the
// sender and the double, and a statement saved shows here before it shows in pushes/s.
import { readFileSync, readdirSync } from 'node:fs';

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** Microseconds of CPU (user and system) the processes named `postgres` have used so far; null where /proc is missing. */
export function postgresCpuMicros() {
  let ticks = 0;
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // `pid (comm) state ppid …`: comm may hold spaces, so fields count from its closing parenthesis.
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      const fields = stat.slice(close + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return (ticks * 1_000_000) / TICKS_PER_SECOND;
}

/** `measure()`'s sample with the PostgreSQL CPU it cost per push (`postgresCpuMicrosPerPush`). */
export async function withPostgresCpu(count, measure) {
  const before = postgresCpuMicros();
  const sample = await measure();
  const after = postgresCpuMicros();
  return { ...sample, postgresCpuMicrosPerPush: before === null || after === null ? null : (after - before) / count };
}
