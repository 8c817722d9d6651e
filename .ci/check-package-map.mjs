#!/usr/bin/env node
// The package map is kept once, in each workspace package's package.json `exports`: every
// entry names its source under the `@tilecast/source` condition, first, which is what
// tsconfig.json (`customConditions`) and vitest.config.ts (`resolve.conditions`) resolve.
// An entry without it would quietly typecheck and test against a stale build in dist/.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CONDITION = '@tilecast/source';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const workspaces = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces;

const problems = [];
for (const workspace of workspaces) {
  const manifest = JSON.parse(readFileSync(path.join(root, workspace, 'package.json'), 'utf8'));
  if (manifest.exports === undefined) continue;
  const entries = typeof manifest.exports === 'string' ? { '.': manifest.exports } : manifest.exports;
  for (const [subpath, target] of Object.entries(entries)) {
    // A data file (JSON) is the same in the repository and the tarball: no source to name.
    if (typeof target === 'string' && target.endsWith('.json')) continue;
    // A plain string entry pointing at a source file is its own source (a private package).
    const source = typeof target === 'string' ? (/\.tsx?$/.test(target) ? target : undefined) : target[CONDITION];
    const where = `${workspace}/package.json exports["${subpath}"]`;
    if (typeof source !== 'string') problems.push(`${where}: no "${CONDITION}" condition naming its source file`);
    else if (!existsSync(path.join(root, workspace, source))) problems.push(`${where}: "${CONDITION}" names ${source}, which does not exist`);
    else if (typeof target === 'object' && Object.keys(target)[0] !== CONDITION) problems.push(`${where}: "${CONDITION}" must come first`);
  }
}
for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
console.log('package map: every exports entry names its source');
