import { run } from './run.js';

// `tilecast …` (through bin/tilecast.js): the exit code is set rather than forced, so stdout is flushed before the process ends.
process.exitCode = await run(process.argv.slice(2), process.env, {
  out: (text) => process.stdout.write(`${text}\n`),
  err: (text) => process.stderr.write(`${text}\n`),
});
