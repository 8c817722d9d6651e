#!/usr/bin/env node
// Lint: adapters only translate (issue 23). For every packages/adapter-*/src:
//   - no numeric literal from 100 to 599 in code: HTTP statuses come from the core
//     (`errorToResult`, `responseHead`, a `CoreResult`'s `status`), never from an adapter;
//   - under 150 lines of translation: non-blank lines holding code (comments do not count),
//     over every file of src/ except pure re-export files (an index.ts of `export … from`
//     only). The Node I/O that adapter-node-http shares with the Express and Fastify adapters
//     (src/io/: reading a body stream under a limit, watching a response close, answering
//     Node's own server events, starting a server) is counted apart, once, under a bound
//     of its own: docs/decisions/0025-adapters-only-translate.md.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LINE_BUDGET = 150;
const SHARED_IO_BUDGET = 200;
/** Per adapter, the folder of src/ holding shared I/O counted apart from its translation. */
const SHARED_IO = { 'adapter-node-http': 'io/' };

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(full);
    else if (entry.name.endsWith('.ts')) yield full;
  }
}

/** Lines on which some token (not a comment, not blank) starts or runs. */
function codeLines(source) {
  const lines = new Set();
  const lineOf = (position) => source.getLineAndCharacterOfPosition(position).line;
  const visit = (node) => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(source);
    if (children.length === 0 && node.kind !== ts.SyntaxKind.EndOfFileToken) {
      for (let line = lineOf(node.getStart(source)); line <= lineOf(node.getEnd()); line++) lines.add(line);
    }
    for (const child of children) visit(child);
  };
  visit(source);
  return lines.size;
}

const isPureReExport = (source) => source.statements.every((statement) => ts.isExportDeclaration(statement) && statement.moduleSpecifier !== undefined);

/** Numeric literals that read as HTTP statuses (100–599). */
function statusLiterals(source) {
  const found = [];
  const visit = (node) => {
    if (ts.isNumericLiteral(node) && Number.isInteger(Number(node.text)) && Number(node.text) >= 100 && Number(node.text) <= 599) {
      const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
      found.push(`${line + 1}:${character + 1} ${node.text}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const problems = [];
const rows = [];
for (const name of readdirSync(path.join(root, 'packages'))
  .filter((entry) => entry.startsWith('adapter-'))
  .sort()) {
  const src = path.join(root, 'packages', name, 'src');
  const shared = SHARED_IO[name];
  const count = { translation: 0, io: 0 };
  for (const file of sources(src)) {
    const relative = path.relative(src, file).split(path.sep).join('/');
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    for (const literal of statusLiterals(source)) {
      problems.push(`packages/${name}/src/${relative}:${literal}: a status literal in an adapter (the core decides every status)`);
    }
    if (isPureReExport(source)) continue;
    if (shared !== undefined && relative.startsWith(shared)) count.io += codeLines(source);
    else count.translation += codeLines(source);
  }
  rows.push(`${name}: ${count.translation} lines of translation${shared === undefined ? '' : `, ${count.io} of shared Node I/O (src/${shared})`}`);
  if (count.translation >= LINE_BUDGET) problems.push(`packages/${name}: ${count.translation} lines of translation, not under ${LINE_BUDGET}`);
  if (count.io >= SHARED_IO_BUDGET) problems.push(`packages/${name}: ${count.io} lines of shared Node I/O, not under ${SHARED_IO_BUDGET}`);
}

for (const row of rows) console.log(`adapters: ${row}`);
for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`adapters: ${problems.length} problem(s); an adapter only translates (docs/decisions/0025-adapters-only-translate.md)`);
  process.exit(1);
}
console.log(`adapters: no status literal; translation under ${LINE_BUDGET} lines each, shared Node I/O under ${SHARED_IO_BUDGET}`);
