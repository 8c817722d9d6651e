/**
 * Every JSON example in docs/ios.md is valid: against the published JSON Schema its marker
 * names (`<!-- schema: <path> [#/json/pointer] -->` lines just before the block, `*` in
 * a pointer standing for every item of an array) and against the valibot schema that
 * JSON Schema is generated from.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { jsonSchemaSources, templateJsonSchemas } from '../../packages/core/src/openapi/json-schemas.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const doc = readFileSync(path.join(root, 'docs/ios.md'), 'utf8');

interface Example {
  line: number;
  json: unknown;
  checks: { schema: string; pointer: string }[];
}

/** The ```json blocks of the page, each with the markers on the lines right before it. */
function examples(markdown: string): Example[] {
  const lines = markdown.split('\n');
  const found: Example[] = [];
  for (let index = 0; index < lines.length; index += 1) {
    if (lines[index] !== '```json') continue;
    const end = lines.indexOf('```', index + 1);
    const checks: Example['checks'] = [];
    for (let above = index - 1; above >= 0; above -= 1) {
      const marker = /^<!-- schema: (\S+)(?: (#\S*))? -->$/.exec(lines[above]!);
      if (marker === null) break;
      checks.unshift({ schema: marker[1]!, pointer: marker[2] ?? '#' });
    }
    found.push({ line: index + 1, json: JSON.parse(lines.slice(index + 1, end).join('\n')), checks });
    index = end;
  }
  return found;
}

/** The values at a JSON pointer, `*` matching every item of an array. */
function select(value: unknown, pointer: string): unknown[] {
  let values = [value];
  for (const token of pointer
    .replace(/^#\/?/, '')
    .split('/')
    .filter((part) => part !== '')) {
    values = values.flatMap((current) => {
      if (token === '*') return Array.isArray(current) ? current : [];
      const key = token.replaceAll('~1', '/').replaceAll('~0', '~');
      return typeof current === 'object' && current !== null && Object.hasOwn(current, key) ? [(current as Record<string, unknown>)[key]] : [];
    });
  }
  return values;
}

const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);
const published = templateJsonSchemas();
const found = examples(doc);

describe('docs/ios.md examples', () => {
  it('has marked examples of every shape an app decodes or sends', () => {
    expect(found.length).toBeGreaterThanOrEqual(10);
    for (const example of found) expect(example.checks.length, `the block at line ${example.line} has no schema marker`).toBeGreaterThan(0);
    const used = new Set(found.flatMap((example) => example.checks.map((check) => check.schema)));
    expect([...used].sort()).toEqual([
      'apns/attributes',
      'apns/content-state',
      'device/activity',
      'device/activity-push-token',
      'device/push-registration',
      'device/widget',
    ]);
  });

  it.each(found.map((example) => [example.line, example] as const))(
    'the block at line %i validates against its JSON Schemas and valibot schemas',
    (_line, example) => {
      for (const { schema, pointer } of example.checks) {
        expect(Object.keys(published), schema).toContain(schema);
        const values = select(example.json, pointer);
        expect(values.length, `${schema} ${pointer} selects nothing`).toBeGreaterThan(0);
        const validateJson = ajv.compile(published[schema]!);
        for (const value of values) {
          expect(validateJson(value) ? [] : validateJson.errors, `${schema} ${pointer}`).toEqual([]);
          const parsed = v.safeParse(jsonSchemaSources[schema]!, value);
          expect(parsed.success ? [] : parsed.issues.map((issue) => `${v.getDotPath(issue)}: ${issue.message}`), `${schema} ${pointer} (valibot)`).toEqual([]);
        }
      }
    },
  );

  it('the checks can fail: a changed example is refused by both', () => {
    const [first] = select(found.find((example) => example.checks[0]!.schema === 'apns/content-state')!.json, '#/aps/content-state') as Record<
      string,
      unknown
    >[];
    const broken = { ...first, state: 'RUNNING' };
    expect(ajv.compile(published['apns/content-state']!)(broken)).toBe(false);
    expect(v.safeParse(jsonSchemaSources['apns/content-state']!, broken).success).toBe(false);
    const extra = { owner: 'acme', slug: 'build', template: 'progress', colour: 'red' };
    expect(ajv.compile(published['apns/attributes']!)(extra)).toBe(false);
    expect(v.safeParse(jsonSchemaSources['apns/attributes']!, extra).success).toBe(false);
  });
});
