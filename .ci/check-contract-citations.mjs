#!/usr/bin/env node
// The contract lives in the repository (docs/contract/), so that a reader of the published
// packages can check every rule the code claims to follow. This fails when a file under
// packages/, examples/, test/, bench/, docs/ (outside docs/contract/, whose pages name
// their sources), .ci/ or scripts/, or a Markdown file at the root:
// - cites one of the documents the contract was written from, which live outside the
//   repository ("service-spec", "reference-deployment §N", "real-devices §N", "the spec",
//   "specification", a bare "§N", shared/spec, shared/design);
// - cites a contract page that does not exist, or an anchor that page does not have
//   (`docs/contract/<page>.md#<anchor>`, or a relative `contract/<page>.md#<anchor>` link).
// In docs/contract/ itself it checks the links between pages and that every anchor is unique.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CONTRACT = 'docs/contract';
const SCANNED = ['packages', 'examples', 'test', 'bench', 'docs', '.ci', 'scripts'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage', '.test-results', 'results', '.readme-snippets']);
const TEXT = /\.(?:[cm]?[jt]s|tsx|md|json|ya?ml|sql|sh|html|css|txt)$/;
const SELF = '.ci/check-contract-citations.mjs';

/** Ways the code used to cite the outside documents. `contract/deployment.md` is a page of ours. */
const OUTSIDE = [
  /service-spec/i,
  /(?<!contract\/)reference-deployment(?!\.md)/i,
  /real-devices/i,
  /\bspecification\b/i,
  /\bservice spec\b/i,
  /\bthe spec\b/i,
  /\bspec's\b/i,
  /\bspec(?: §| "| '|: [\d`"])/i,
  /(?<!RFC \d+ )§ ?\d/,
  /shared\/(?:spec|design)/,
];
const CITATION = /(?:^|[^\w/.-])((?:\.\.\/)*(?:docs\/)?contract\/([A-Za-z0-9_-]+)\.md)(?:#([A-Za-z0-9_-]+))?/g;

const anchorsOf = new Map();
for (const name of readdirSync(path.join(root, CONTRACT))) {
  if (!name.endsWith('.md')) continue;
  const text = readFileSync(path.join(root, CONTRACT, name), 'utf8');
  anchorsOf.set(name.slice(0, -3), new Set([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1])));
}

const problems = [];
const seen = new Map();
for (const [page, anchors] of anchorsOf) {
  for (const anchor of anchors) {
    if (seen.has(anchor)) problems.push(`${CONTRACT}/${page}.md: anchor "${anchor}" is also on ${seen.get(anchor)}.md`);
    seen.set(anchor, page);
  }
}

function checkCitation(where, page, anchor) {
  const anchors = anchorsOf.get(page);
  if (anchors === undefined) problems.push(`${where}: cites ${CONTRACT}/${page}.md, which does not exist`);
  else if (anchor !== undefined && !anchors.has(anchor)) problems.push(`${where}: cites ${CONTRACT}/${page}.md#${anchor}, an anchor that page does not have`);
}

function checkFile(file) {
  const inContract = file.startsWith(`${CONTRACT}/`);
  const page = inContract ? path.basename(file, '.md') : undefined;
  const lines = readFileSync(path.join(root, file), 'utf8').split('\n');
  lines.forEach((line, index) => {
    const where = `${file}:${index + 1}`;
    if (!inContract) {
      const outside = OUTSIDE.find((pattern) => pattern.test(line));
      if (outside !== undefined)
        problems.push(`${where}: cites a document outside the repository (${line.match(outside)[0]}); cite ${CONTRACT}/<page>.md#<anchor>`);
    }
    for (const m of line.matchAll(CITATION)) checkCitation(where, m[2], m[3]);
    if (inContract) {
      // Links between the pages: `(other-page.md#anchor)`, `(#anchor)` on the same page.
      for (const m of line.matchAll(/\]\(([A-Za-z0-9_-]+)\.md(?:#([A-Za-z0-9_-]+))?\)/g)) checkCitation(where, m[1], m[2]);
      for (const m of line.matchAll(/\]\(#([A-Za-z0-9_-]+)\)/g)) checkCitation(where, page, m[1]);
    }
  });
}

function walk(dir) {
  for (const name of readdirSync(path.join(root, dir))) {
    const relative = dir === '' ? name : `${dir}/${name}`;
    if (statSync(path.join(root, relative)).isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) walk(relative);
    } else if (TEXT.test(name) && name !== 'package-lock.json' && relative !== SELF) {
      checkFile(relative);
    }
  }
}

for (const dir of SCANNED) if (existsSync(path.join(root, dir))) walk(dir);
for (const name of readdirSync(root)) if (name.endsWith('.md')) checkFile(name);

for (const problem of problems) console.error(problem);
if (problems.length > 0) process.exit(1);
console.log(`contract citations: none outside the repository, every one names an anchor that exists (${seen.size} anchors)`);
