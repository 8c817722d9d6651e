/**
 * Runs a program with a terminal as its stdout and stderr (a pseudo-terminal from
 * util-linux's `script`), as when a person runs `npm start`: the reference server prints
 * tokens only there.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';

/** Whether util-linux's `script` is here to give a program a terminal. */
export const canRunOnTerminal = spawnSync('script', ['--version'], { encoding: 'utf8' }).stdout?.includes('util-linux') === true;

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;

/**
 * Starts `node args` on a pseudo-terminal with `env` added, and collects what it prints
 * (stdout and stderr, as the terminal shows them, lines ending in `\r\n`) until `done`
 * matches, within 15 s. Killing the returned child (SIGTERM) ends the program too.
 */
export async function startOnTerminal(args: string[], env: Record<string, string>, done: RegExp): Promise<{ child: ChildProcess; output: string }> {
  const command = `exec ${[process.execPath, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 15_000;
  while (!done.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      throw new Error(`${args.join(' ')} did not print ${done} on a terminal:\n${output}`);
    }
    await Promise.race([once(child.stdout!, 'data'), once(child, 'exit'), new Promise((settle) => setTimeout(settle, 500))]);
  }
  return { child, output };
}
