#!/usr/bin/env node
// Packaging: every published workspace package (not `private`) passes publint and
// @arethetypeswrong/cli on the tarball `npm pack` would publish. Run after the build.
//
// attw runs with `--profile node16`: the packages need Node 20 and ship an `exports` map,
// so TypeScript's legacy `node10` resolution (which ignores `exports`) is not supported.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const workspaces = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces;

let failed = 0;
for (const workspace of workspaces) {
  const dir = path.join(root, workspace);
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  for (const [tool, args] of [
    ['publint', ['--strict', dir]],
    ['attw', ['--pack', dir, '--profile', 'node16', '--format', 'ascii']],
  ]) {
    const run = spawnSync(bin(tool), args, { cwd: dir, encoding: 'utf8' });
    if (run.status === 0) {
      console.log(`${tool}: ${manifest.name} ok`);
      continue;
    }
    failed += 1;
    console.error(`${tool}: ${manifest.name} FAILED\n${run.stdout}${run.stderr}`);
  }
}
if (failed > 0) {
  console.error(`packaging: ${failed} check(s) failed`);
  process.exit(1);
}
console.log('packaging: publint and attw pass on every published package');
