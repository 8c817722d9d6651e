import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { templateJsonSchemas } from '../../src/index.js';
import { activityContentSchemas, activityTemplateNames, widgetTemplateNames } from '../../src/schemas/index.js';

const packageRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const schemas = templateJsonSchemas();
const ajv = new Ajv2020({ strict: true, allErrors: true });
addFormats.default(ajv);

describe('templateJsonSchemas()', () => {
  it('one schema per activity and widget template, plus the APNs and device shapes', () => {
    expect(Object.keys(schemas).sort()).toEqual(
      [
        ...activityTemplateNames.map((name) => `activity/${name}`),
        ...widgetTemplateNames.map((name) => `widget/${name}`),
        'apns/attributes',
        'apns/content-state',
        'device/activity',
        'device/activity-push-token',
        'device/fcm-registration',
        'device/push-registration',
        'device/widget',
      ].sort(),
    );
  });

  it('each is a standalone draft 2020-12 schema that compiles in strict mode, every $ref in its own $defs', () => {
    for (const [name, schema] of Object.entries(schemas)) {
      expect(schema.$schema, name).toBe('https://json-schema.org/draft/2020-12/schema');
      expect(() => ajv.compile(schema), name).not.toThrow();
      const refs = JSON.stringify(schema).match(/"\$ref":"[^"]*"/g) ?? [];
      for (const ref of refs) expect(ref, name).toMatch(/"\$ref":"#\/\$defs\/[^"]+"/);
    }
  });

  it('describes stored content (every field required, no icon_v2), and request bodies with their optional fields', () => {
    const progress = schemas['activity/progress']!;
    expect(progress.required).toEqual(Object.keys(progress.properties!));
    expect(progress.properties).not.toHaveProperty('icon_v2');
    const stored = v.parse(activityContentSchemas.progress, { progress: { value: 0.5 } });
    expect(ajv.validate(progress, stored)).toBe(true);
    expect(ajv.validate(progress, { template: 'progress', progress: { value: 0.5 } })).toBe(false); // not stored: fields missing
    const registration = schemas['device/push-registration']!;
    expect(registration.required).toEqual(['environment']);
    expect(ajv.validate(registration, { environment: 'sandbox', widgets: null })).toBe(true);
    expect(ajv.validate(registration, { environment: 'sandbox', widgets: 'xyz' })).toBe(false);
    const fcm = schemas['device/fcm-registration']!;
    expect(fcm.required).toEqual(['token']);
    expect(ajv.validate(fcm, { token: 'dQw4w9WgXcQ:APA91b-x_Y' })).toBe(true);
    for (const token of ['', 'a b', 'a'.repeat(4097), null]) expect(ajv.validate(fcm, { token }), JSON.stringify(token)).toBe(false);
    expect(ajv.validate(fcm, { token: 'abc', extra: 1 })).toBe(false);
  });

  it('the files in json-schemas/ are current (npm run build -w @tilecast/core writes them)', () => {
    const dir = path.join(packageRoot, 'json-schemas');
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.schema.json'))
      .map((file) => file.split(path.sep).join('/'))
      .sort();
    expect(files).toEqual(
      Object.keys(schemas)
        .map((name) => `${name}.schema.json`)
        .sort(),
    );
    for (const name of Object.keys(schemas)) {
      expect(readFileSync(path.join(dir, `${name}.schema.json`), 'utf8'), name).toBe(`${JSON.stringify(schemas[name], null, 2)}\n`);
    }
  });
});
