import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

/**
 * The command line of a bench tool: `--help` (or `-h`) prints `usage` and exits 0; an
 * unknown option or a bad value prints the error and `usage` and exits 2. `options` are
 * node:util parseArgs options (help is added). Returns `{ positionals, values }`.
 */
export function commandLine(usage, options = {}) {
  let parsed;
  try {
    parsed = parseArgs({ args: process.argv.slice(2), options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (error) {
    console.error(`${error.message}\n\n${usage.trim()}`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(usage.trim());
    process.exit(0);
  }
  return parsed;
}

/** `out` if given (created if missing), else a new directory under the system's temporary directory. */
export function outputDirectory(out, prefix) {
  if (out !== undefined) {
    mkdirSync(out, { recursive: true });
    return out;
  }
  return mkdtempSync(join(tmpdir(), `${prefix}-`));
}
