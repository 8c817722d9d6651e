#!/usr/bin/env node
// Writes the published JSON Schemas (templateJsonSchemas(), from the build in dist/) to
// json-schemas/<kind>/<name>.schema.json, shipped with the package for iOS apps to
// generate their types from. Run by `npm run build`; a test checks the files are current.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { templateJsonSchemas } from '../dist/index.js';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'json-schemas');
rmSync(out, { recursive: true, force: true });
const schemas = templateJsonSchemas();
for (const [name, schema] of Object.entries(schemas)) {
  const file = path.join(out, `${name}.schema.json`);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(schema, null, 2)}\n`);
}
console.log(`json-schemas: ${Object.keys(schemas).length} files`);
