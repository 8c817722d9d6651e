/**
 * `/openapi.json` as third-party tools read it: `@redocly/cli lint` with the recommended
 * rules (repository `redocly.yaml`) finds nothing, and the types `openapi-typescript`
 * generates with its defaults accept a typed request of every template (and refuse a
 * request that misses a required field).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { activityDataSchema, pressReport, pushRegistration, validate, widgetDataSchema } from '../../src/schemas/index.js';
import { WebhookMapInput } from '../../src/webhooks/map-schema.js';
import { activityRequests, otherRequests, widgetRequests } from './request-samples.js';

const root = resolve(import.meta.dirname, '../../../..');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
let dir: string;
let documentPath: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'tilecast-openapi-'));
  documentPath = join(dir, 'openapi.json');
  writeFileSync(documentPath, JSON.stringify(buildOpenApiDocument(), null, 2));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, stdout: result.stdout };
}

describe('@redocly/cli lint (recommended rules)', () => {
  it('reports no error and no warning', () => {
    const { stdout, output } = run(bin('redocly'), ['lint', '--config', join(root, 'redocly.yaml'), '--format', 'json', documentPath]);
    const report = JSON.parse(stdout.slice(stdout.indexOf('{'))) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(
      report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`),
      output,
    ).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
  });
});

describe('openapi-typescript types', () => {
  it('the samples are requests the service accepts', () => {
    const resourceTemplate: Record<string, string> = { progressSegmented: 'progress', untagged: 'gauge' };
    const withTemplate = (name: string, body: { content: object }) => ({ ...body, content: { template: resourceTemplate[name], ...body.content } });
    for (const [name, body] of Object.entries(activityRequests)) expect(validate(activityDataSchema, withTemplate(name, body)).success, name).toBe(true);
    for (const [name, body] of Object.entries(widgetRequests)) expect(validate(widgetDataSchema, withTemplate(name, body)).success, name).toBe(true);
    expect(validate(WebhookMapInput, otherRequests.webhooks).success).toBe(true);
    expect(validate(pressReport, otherRequests.press).success).toBe(true);
    expect(validate(pushRegistration, otherRequests.push).success).toBe(true);
  });

  it('accept a typed request of every template, and refuse incomplete ones', () => {
    const generated = run(bin('openapi-typescript'), [documentPath, '--output', join(dir, 'api.ts')]);
    expect(generated.status, generated.output).toBe(0);
    const body = (path: string, method: string) => `paths['${path}']['${method}']['requestBody']['content']['application/json']`;
    const assign = (type: string, samples: Record<string, unknown>) =>
      Object.entries(samples).map(([name, sample]) => `export const ${type}_${name}: ${type} = ${JSON.stringify(sample)};`);
    writeFileSync(
      join(dir, 'check.ts'),
      [
        "import type { paths } from './api';",
        `type Activity = ${body('/activity/{activity_id}', 'patch')};`,
        `type Widget = ${body('/widget/{slug}', 'patch')};`,
        `type Webhooks = ${body('/widget/{slug}/webhooks', 'put')};`,
        `type Press = ${body('/device/presses', 'post')};`,
        `type Push = ${body('/device/push', 'put')};`,
        ...assign('Activity', activityRequests),
        ...assign('Widget', widgetRequests),
        `export const Webhooks_map: Webhooks = ${JSON.stringify(otherRequests.webhooks)};`,
        `export const Press_toggle: Press = ${JSON.stringify(otherRequests.press)};`,
        `export const Push_widgets: Push = ${JSON.stringify(otherRequests.push)};`,
        // The types are not `any`: a missing required field, a wrong enum value, an unknown field.
        '// @ts-expect-error value is required',
        "export const missingValue: Widget = { content: { template: 'gauge' } };",
        '// @ts-expect-error no such state',
        "export const badState: Activity = { state: 'RUNNING', content: { template: 'generic', progress: 1 } };",
        '// @ts-expect-error progress is required',
        "export const missingProgress: Activity = { state: 'ONGOING', content: { template: 'progress' } };",
        '',
      ].join('\n'),
    );
    const tsc = run(process.execPath, [
      join(root, 'node_modules/typescript/bin/tsc'),
      '--noEmit',
      '--strict',
      '--target',
      'es2022',
      '--module',
      'esnext',
      '--moduleResolution',
      'bundler',
      join(dir, 'check.ts'),
    ]);
    expect(tsc.output).toBe('');
    expect(tsc.status).toBe(0);
  }, 120_000);
});
