/** The built reference server (`dist/main.js`) as a child process, for tests of what only a real process shows (signals, exit codes, stdout). */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const main = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface RunningServer {
  child: ChildProcess;
  url: string;
  /** Everything it wrote so far, stdout and stderr interleaved. */
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** The address, from the start-up line (the banner on stderr, or a JSON log line alike). */
const LISTENING = /listening[^\n]*?(http:\/\/127\.0\.0\.1:\d+)/;

/** Starts the built server on a free loopback port with `env` over this process's environment, and waits until it listens. */
export async function startBuiltServer(env: Record<string, string>): Promise<RunningServer> {
  const child = spawn(process.execPath, [main], {
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer) => (output += chunk.toString());
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = once(child, 'exit').then(([code, signal]) => ({ code: code as number | null, signal: signal as NodeJS.Signals | null }));
  const deadline = Date.now() + 15_000;
  while (!LISTENING.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`server did not start:\n${output}`);
    await Promise.race([once(child.stdout!, 'data'), once(child.stderr!, 'data'), exited]);
  }
  return { child, url: LISTENING.exec(output)![1]!, output: () => output, exited };
}
