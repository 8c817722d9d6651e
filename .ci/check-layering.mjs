#!/usr/bin/env node
// Lint: imports inside packages/core/src point down the layers of
// docs/decisions/0088-core-layering.md, never sideways into another service's module nor up.
//
// Each rule names the importing folders, the folder they may not import, and the files of
// that folder they may still import: the edges fixed in issue 21 item 6, plus the floor
// (storage/, schemas/, transport/, http/ never import a service, nothing but the composition
// imports handlers/). HOMES keeps the helpers moved then from being imported from a service
// again. A new rule is a line here.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'packages/core/src');

const SERVICES = ['auth/', 'devices/', 'events/', 'health/', 'management/', 'openapi/', 'presses/', 'publishing/', 'sse/', 'webhooks/'];
const LOWER = ['storage/', 'schemas/', 'transport/', 'http/'];

/** @type {{ from: string[]; to: string; allow?: string[]; why: string }[]} */
const RULES = [
  {
    from: ['webhooks/'],
    to: 'http/',
    allow: ['http/headers.ts', 'http/types.ts'],
    why: 'outbound webhooks share only header helpers and the seam types with the inbound HTTP layer',
  },
  { from: ['presses/', 'devices/'], to: 'publishing/', why: 'a shared piece goes down (storage/, transport/), not into a sibling service' },
  { from: ['presses/', 'publishing/'], to: 'devices/', why: 'a shared piece goes down (storage/, transport/), not into a sibling service' },
  { from: ['sse/'], to: 'events/', why: 'sse/ is the plumbing under events/ and devices/, not a user of them' },
  { from: ['sse/'], to: 'devices/', why: 'sse/ is the plumbing under events/ and devices/, not a user of them' },
  { from: SERVICES, to: 'schemas/widgets/', why: 'widget templates are reached through schemas/index.ts or shared pieces in schemas/fields.ts' },
  { from: [...LOWER, ...SERVICES], to: 'handlers/', why: 'handlers sit on top: only the composition (tilecast.ts) imports them' },
  ...LOWER.flatMap((lower) => SERVICES.map((service) => ({ from: [lower], to: service, why: `${lower} is below the services and may not import one` }))),
];

// Shared helpers moved out of a service in issue 21 item 6, and their one home: importing one
// of these names from anywhere else means it was copied back into a service.
const HOMES = {
  once: ['once.ts'],
  singleHeader: ['http/headers.ts'],
  widgetKey: ['storage/widget-key.ts'],
  activityPush: ['transport/pushes.ts'],
  widgetPush: ['transport/pushes.ts'],
  ACTION_ID_PATTERN: ['schemas/fields.ts'],
  withDefault: ['schemas/fields.ts', 'schemas/widgets/common.ts'],
};

// `from '…'`, `import '…'`, `import('…')`: relative specifiers only.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(?\s*)'(\.{1,2}\/[^']+)'/g;

const NAMED_IMPORT = /\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from\s*'(\.{1,2}\/[^']+)'/g;

/** `type a as b` → `a`. */
const importedName = (part) =>
  part
    .trim()
    .replace(/^type\s+/, '')
    .split(/\s+as\s+/)[0];

function* sources(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(full);
    else if (entry.name.endsWith('.ts')) yield full;
  }
}

const relative = (file) => path.relative(src, file).split(path.sep).join('/');
const problems = [];
for (const file of sources(src)) {
  const importer = relative(file);
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(SPECIFIER)) {
    const target = relative(path.resolve(path.dirname(file), match[1])).replace(/\.js$/, '.ts');
    for (const rule of RULES) {
      if (!rule.from.some((folder) => importer.startsWith(folder))) continue;
      if (!target.startsWith(rule.to) || rule.allow?.includes(target)) continue;
      const line = text.slice(0, match.index).split('\n').length;
      problems.push(`packages/core/src/${importer}:${line} imports ${target}: ${rule.why}`);
    }
  }
  for (const match of text.matchAll(NAMED_IMPORT)) {
    const target = relative(path.resolve(path.dirname(file), match[2])).replace(/\.js$/, '.ts');
    for (const name of match[1].split(',').map(importedName)) {
      const homes = Object.hasOwn(HOMES, name) ? HOMES[name] : undefined;
      if (homes === undefined || homes.includes(target)) continue;
      const line = text.slice(0, match.index).split('\n').length;
      problems.push(`packages/core/src/${importer}:${line} imports ${name} from ${target}: its home is ${homes[0]}`);
    }
  }
}

for (const problem of problems) console.error(problem);
if (problems.length > 0) {
  console.error(`layering: ${problems.length} import(s) against the rules (docs/decisions/0088-core-layering.md)`);
  process.exit(1);
}
console.log('layering: core imports follow the rules');
