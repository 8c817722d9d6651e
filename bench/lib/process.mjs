import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpuLayout } from './cpus.mjs';

export const hasTaskset = spawnSync('taskset', ['-V']).status === 0;
/** chrt (util-linux), for a process at SCHED_IDLE (A1's latency floor). */
export const hasChrt = spawnSync('chrt', ['--version']).status === 0;

/** Which cores the servers, the load (this process) and helpers run on (BENCH_SERVER_CPUS, BENCH_LOAD_CPUS; see cpus.mjs). */
export const LAYOUT = layoutOrExit();
/** The servers' cores, as taskset takes them. */
export const SERVER_CPUS = LAYOUT.server;
/** The runner's and load generator's cores. */
export const LOAD_CPUS = LAYOUT.load;
/** A helper that is not measured (the APNs double): a core of its own if one is spare, else the load's. */
export const HELPER_CPUS = LAYOUT.helper;

/** The layout, or a one-line error and exit 2 when BENCH_SERVER_CPUS or BENCH_LOAD_CPUS cannot be met. */
function layoutOrExit() {
  try {
    return cpuLayout();
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
}

/**
 * Runs this script again pinned to LOAD_CPUS (when taskset exists and it is not pinned
 * yet) and exits with its status; returns only in the pinned process. Every script that
 * generates load calls it first: an unpinned load generator also runs on the servers'
 * cores and is counted in their profiles. The pinned process is told which CPUs the run
 * may use, as its own affinity no longer says.
 */
export function pinLoadGenerator(script) {
  if (!hasTaskset || process.env.TILECAST_BENCH_PINNED === '1') return;
  const child = spawnSync('taskset', ['-c', LOAD_CPUS, process.execPath, ...process.execArgv, fileURLToPath(script), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, TILECAST_BENCH_PINNED: '1', TILECAST_BENCH_ALLOWED_CPUS: LAYOUT.allowed },
  });
  process.exit(child.status ?? 1);
}

/**
 * Starts a server script in its own process (pinned to `cpu`, a taskset CPU list,
 * SERVER_CPUS by default, when taskset exists) and resolves once it reported ready.
 * Bounded: a server that is not ready in `readyTimeoutMs` (20 s by default) fails. A helper
 * that is not measured (the APNs double) passes `cpu: HELPER_CPUS`, so that it never takes
 * time from the measured server.
 */
export async function startServer(script, { env = {}, args = [], nodeArgs = [], launcher = [], cpu = SERVER_CPUS, readyTimeoutMs = 20_000 } = {}) {
  const path = fileURLToPath(new URL(`../${script}`, import.meta.url));
  // BENCH_CPU_PROF=<dir>: every server writes a CPU profile there (diagnostics only).
  const profiling = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  // `launcher`: a command that runs node in place (valgrind, for bench/tools/instructions.mjs).
  const node = [...launcher, process.execPath, ...profiling, ...nodeArgs, '--expose-gc', path, ...args];
  const [command, argv] = hasTaskset ? ['taskset', ['-c', cpu, ...node]] : [node[0], node.slice(1)];
  const child = spawn(command, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ready = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${script} was not ready within ${readyTimeoutMs / 1000} s`)), readyTimeoutMs);
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
    child.on('message', (message) => {
      if (message?.type !== 'ready') return;
      clearTimeout(timer);
      resolve(message);
    });
  });
  let nextId = 1;
  /** Sends an IPC request and resolves with the server's answer (`{type: answerType, id}`). */
  const ask = (message, answerType, timeoutMs = 60_000) => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`server did not answer ${message.type}`)), timeoutMs);
      const onMessage = (answer) => {
        if (answer?.type !== answerType || answer.id !== id) return;
        clearTimeout(timer);
        child.off('message', onMessage);
        resolve(answer);
      };
      child.on('message', onMessage);
      child.send({ ...message, id });
    });
  };
  return {
    ...ready,
    /** The server's process id (taskset, and a launcher such as valgrind, exec node in place). */
    pid: child.pid,
    url: `http://127.0.0.1:${ready.port}`,
    ask,
    /** CPU time (µs, user + system) and memory (after a forced full GC) of the server process. */
    stats: () => ask({ type: 'stats' }, 'stats', 10_000).then((answer) => ({ cpuMicros: answer.cpu.user + answer.cpu.system, memory: answer.memory })),
    /** CPU time (µs, user + system) alone, without disturbing the server (no forced GC). */
    cpu: () => ask({ type: 'stats', gc: false }, 'stats', 10_000).then((answer) => answer.cpu.user + answer.cpu.system),
    /** SIGTERM, then SIGKILL after `killAfterMs` (callgrind writes its counts as the process exits: give it time). */
    async stop(killAfterMs = 5_000) {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
