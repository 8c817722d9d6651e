#!/usr/bin/env node
// Packaging: every published workspace package (not `private`) passes publint and
// @arethetypeswrong/cli on the tarball `npm pack` would publish, and that tarball's own
// package.json names only files the tarball holds (no `@tilecast/source` condition: see
// scripts/pack-manifest.mjs). Run after the build.
//
// attw runs with `--profile node16`: the packages need Node 20 and ship an `exports` map,
// so TypeScript's legacy `node10` resolution (which ignores `exports`) is not supported.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const workspaces = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')).workspaces;

/** Every file path an `exports` map names, at any depth of its conditions. */
function exportTargets(target) {
  if (typeof target === 'string') return [target];
  if (target === null || typeof target !== 'object') return [];
  return Object.values(target).flatMap(exportTargets);
}

/** What is wrong with the manifest inside the tarball `npm pack` makes of `dir`. */
function packedManifestProblems(dir, sourceText) {
  const scratch = mkdtempSync(path.join(tmpdir(), 'tilecast-pack-'));
  try {
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }),
    );
    const files = new Set(packed.files.map((file) => file.path));
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', path.join(scratch, packed.filename), 'package/package.json'], { encoding: 'utf8' }));
    const problems = [];
    if (readFileSync(path.join(dir, 'package.json'), 'utf8') !== sourceText) problems.push('packing left package.json changed');
    if (JSON.stringify(manifest.exports ?? {}).includes('@tilecast/source')) problems.push('the packed exports still carry the @tilecast/source condition');
    for (const target of exportTargets(manifest.exports ?? {})) {
      const pattern = new RegExp(
        `^${target
          .replace(/^\.\//, '')
          .replace(/[.+?^${}()|[\]\\]/g, '\\$&')
          .replace('*', '.+')}$`,
      );
      if (![...files].some((file) => pattern.test(file))) problems.push(`exports names ${target}, which the tarball does not hold`);
    }
    return problems;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

let failed = 0;
for (const workspace of workspaces) {
  const dir = path.join(root, workspace);
  const sourceText = readFileSync(path.join(dir, 'package.json'), 'utf8');
  const manifest = JSON.parse(sourceText);
  if (manifest.private) continue;
  const problems = packedManifestProblems(dir, sourceText);
  if (problems.length === 0) console.log(`packed manifest: ${manifest.name} ok`);
  else {
    failed += 1;
    console.error(`packed manifest: ${manifest.name} FAILED\n  ${problems.join('\n  ')}`);
  }
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
console.log('packaging: publint, attw and the packed manifests pass on every published package');
