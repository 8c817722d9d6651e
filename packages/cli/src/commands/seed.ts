import { readFile } from 'node:fs/promises';
import { InvalidArgumentError, loadSeed, type SeedResult } from '@tilecast/core';
import { defineCommand } from '../command.js';
import { usageError } from '../errors.js';

export const seedApply = defineCommand({
  words: ['seed', 'apply'],
  summary: 'apply a seed file: create what it declares and the database lacks',
  description:
    'Applies a seed file (the format of TILECAST_SEED, see the reference server README) exactly as the reference server does at start: what it declares and the database lacks is created; what exists is left as the app, the API and this CLI changed it. A token is printed only for an account or device created now (once: it is stored hashed).',
  arguments: [{ name: 'file', help: 'path of the seed file (JSON)' }],
  options: {},
  examples: ['seed apply seed.json'],
  async run({ args }, database) {
    const seed = await readSeed(args.file!);
    const result = await loadSeed(await database.management(), seed).catch((error: unknown) => {
      // A file that does not parse as a seed: the path into it (`accounts.0.colour`) is what
      // the user needs, as written. (A seed naming a missing record is reported as usual.)
      if (error instanceof InvalidArgumentError && error.problems.length > 0)
        throw usageError(`the seed file ${args.file} is invalid: ${error.message.replace(/^seed file: /, '')}`);
      throw error;
    });
    return { json: result, text: describe(result) };
  },
});

async function readSeed(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw usageError(`cannot read the seed file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw usageError(`the seed file ${path} is not JSON: ${(error as Error).message}`);
  }
}

function describe(result: SeedResult): string {
  const lines = [
    ...result.accounts.map((a) => (a.created ? `account ${a.id}: created, API token (shown once): ${a.token}` : `account ${a.id}: exists, left as it is`)),
    ...result.devices.map((d) =>
      d.created ? `device ${d.id} of ${d.account}: created, device token (shown once): ${d.token}` : `device ${d.id} of ${d.account}: exists, left as it is`,
    ),
  ];
  return lines.length === 0 ? 'The seed declares no accounts.' : lines.join('\n');
}
