#!/usr/bin/env node
// `prepack` / `postpack` of every published package: the published package.json must not
// carry the `@tilecast/source` condition, which names TypeScript sources the tarball does
// not hold (it exists for this repository's typecheck and tests only: the one package map,
// see .ci/check-package-map.mjs). npm has no `publishConfig.exports`, so `prepack` keeps the
// manifest aside and writes it without the condition, and `postpack` puts it back.
//
//   node ../../scripts/pack-manifest.mjs strip     (prepack, run in the package directory)
//   node ../../scripts/pack-manifest.mjs restore   (postpack)
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const CONDITION = '@tilecast/source';
const MANIFEST = 'package.json';
const KEPT = 'package.json.source';

/** `exports` without the source condition, at any depth of the conditions. */
function withoutSource(target) {
  if (target === null || typeof target !== 'object') return target;
  if (Array.isArray(target)) return target.map(withoutSource);
  return Object.fromEntries(
    Object.entries(target)
      .filter(([key]) => key !== CONDITION)
      .map(([key, value]) => [key, withoutSource(value)]),
  );
}

const step = process.argv[2];
if (step === 'strip') {
  // A pack that died before its postpack left the original aside: it is the one to keep.
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
  const text = readFileSync(MANIFEST, 'utf8');
  const manifest = JSON.parse(text);
  writeFileSync(KEPT, text);
  writeFileSync(MANIFEST, `${JSON.stringify({ ...manifest, exports: withoutSource(manifest.exports) }, null, 2)}\n`);
} else if (step === 'restore') {
  if (existsSync(KEPT)) renameSync(KEPT, MANIFEST);
} else {
  console.error('usage: pack-manifest.mjs strip|restore');
  process.exit(2);
}
