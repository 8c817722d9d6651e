import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The bin npm links as `tilecast` (it loads the build in dist/). */
export const BIN = fileURLToPath(new URL('../bin/tilecast.js', import.meta.url));
const BUILT = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** Real PostgreSQL (the global setup finds a local server when DATABASE_URL is unset). */
export const DATABASE_URL = process.env.DATABASE_URL || undefined;

export const randomSchema = (label: string): string => `tc_${label}_${randomBytes(5).toString('hex')}`;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Fails at once, with the fix, when the command was not built (the tests run the build, not the sources). */
export function requireBuild(): void {
  if (!existsSync(BUILT)) throw new Error(`${BUILT} is missing: run \`npm run build -w packages/cli\` first`);
}

/**
 * Runs `tilecast <args>` as a child process with only the environment given (and PATH):
 * nothing of the test runner's leaks in. Ends within `timeoutMs` (killed after).
 */
export function tilecast(args: string[], env: Record<string, string> = {}, timeoutMs = 30_000): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, timeout: timeoutMs }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
      resolve({ code, stdout, stderr });
    });
  });
}
