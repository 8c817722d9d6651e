import { Validator } from '@seriousme/openapi-schema-validator';
import type * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { namedSchemas } from '../../src/openapi/components.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { Color, widgetTemplateNames } from '../../src/schemas/index.js';
import { strictShape } from '../../src/schemas/primitives.js';

type Json = Record<string, any>;

let doc: Json;
let schemas: Record<string, Json>;

beforeAll(() => {
  doc = buildOpenApiDocument({}) as Json;
  schemas = doc.components.schemas;
});

/** Every `$ref` in the document. */
function refs(value: unknown, found: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((item) => refs(item, found));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string') found.push(child);
      else refs(child, found);
    }
  }
  return found;
}

function resolve(ref: string): Json | undefined {
  return ref
    .slice(2)
    .split('/')
    .reduce<any>((node, key) => node?.[key.replaceAll('~1', '/').replaceAll('~0', '~')], doc);
}

/** The underlying strict object of a named valibot schema, if it is one. */
function objectOf(schema: v.GenericSchema): (v.GenericSchema & { entries: Record<string, v.GenericSchema> }) | undefined {
  const base = 'pipe' in schema ? (schema.pipe as v.GenericSchema[])[0]! : schema;
  const object = strictShape(base) ?? base;
  return 'entries' in object ? (object as any) : undefined;
}

const component = (name: string, mode: 'Input' | 'Output'): Json => schemas[`${name}-${mode}`] ?? schemas[name]!;

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const result = await new Validator().validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
  });

  it('has the version and titles', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info).toMatchObject({ title: 'Tilecast', version: '0.1.0' });
    expect((buildOpenApiDocument({ title: 'My Service' }) as Json).info.title).toBe('My Service');
  });

  it('lists the publisher operations, not /openapi.json', () => {
    expect(Object.keys(doc.paths)).toEqual(['/activity/{activity_id}', '/widget/{slug}', '/widget/{slug}/webhooks']);
    expect(Object.keys(doc.paths['/widget/{slug}/webhooks'])).toEqual(['put', 'get', 'delete']);
    expect(Object.keys(doc.paths['/activity/{activity_id}'])).toEqual(['patch']);
    expect(Object.keys(doc.paths['/widget/{slug}'])).toEqual(['patch']);
  });

  it.each([
    ['/activity/{activity_id}', 'activity_id', 'ActivityData'],
    ['/widget/{slug}', 'slug', 'WidgetData'],
  ])('%s: path parameter, bodies, responses and security', (path, parameter, data) => {
    const operation = doc.paths[path].patch;
    expect(operation.parameters).toEqual([
      expect.objectContaining({ name: parameter, in: 'path', required: true, schema: expect.objectContaining({ type: 'string' }) }),
    ]);
    expect(operation.requestBody.content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${data}-Input` });
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '401', '402', '404', '422']);
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${data}-Output` });
    for (const status of ['400', '401', '402', '404']) {
      expect(operation.responses[status].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
    }
    expect(operation.responses['422'].content['application/json'].schema.anyOf).toEqual([
      { $ref: '#/components/schemas/HTTPValidationError' },
      { $ref: '#/components/schemas/ErrorResponse' },
    ]);
    const [requirement] = operation.security;
    const [scheme] = Object.keys(requirement);
    expect(doc.components.securitySchemes[scheme!]).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.components.securitySchemes[scheme!].description).toContain('Token <API_TOKEN>');
  });

  it('resolves every $ref to a component', () => {
    const all = refs(doc);
    expect(all.length).toBeGreaterThan(50);
    for (const ref of all) {
      expect(ref.startsWith('#/components/schemas/'), ref).toBe(true);
      expect(resolve(ref), ref).toBeDefined();
    }
  });

  it('describes the field errors of a 422', () => {
    expect(schemas.HTTPValidationError).toMatchObject({
      properties: { detail: { type: 'array', items: { $ref: '#/components/schemas/ValidationError' } } },
      required: ['detail'],
    });
    expect(schemas.ValidationError).toMatchObject({
      properties: { loc: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'integer' }] } }, msg: { type: 'string' }, type: { type: 'string' } },
      required: ['loc', 'msg', 'type'],
    });
    expect(schemas.ErrorResponse).toMatchObject({ properties: { detail: { type: 'string' } }, required: ['detail'] });
  });
});

describe('components follow the validators', () => {
  it('names the reusable pieces', () => {
    for (const name of ['ActivityState', 'Color', 'ColorRendering', 'ColumnId', 'RenderingMode', 'SegmentDisplay', 'TrackFill']) {
      expect(schemas[name], name).toBeDefined();
    }
    for (const name of [
      'ActivityData',
      'Icon',
      'Value',
      'Column',
      'Segment',
      'SimpleProgressBar',
      'SegmentedProgressBar',
      'ProgressBar',
      'ActivityContent',
      'WidgetContent',
    ]) {
      expect(schemas[`${name}-Input`], name).toBeDefined();
      expect(schemas[`${name}-Output`], name).toBeDefined();
    }
  });

  it('copies enumerations from the schemas', () => {
    expect(schemas.Color).toEqual({ type: 'string', enum: [...Color.options] });
    expect(schemas.ActivityState?.enum).toEqual(['IDLE', 'ONGOING']);
  });

  it('carries the bounds of the validators', () => {
    expect(component('Segment', 'Input').properties.label.anyOf[0]).toEqual({ type: 'string', maxLength: 64 });
    expect(component('SegmentedProgressBar', 'Input').properties.segments).toMatchObject({ type: 'array', minItems: 1, maxItems: 4 });
    expect(component('Segment', 'Input').properties.value).toEqual({ type: 'number', minimum: 0, maximum: 1 });
    expect(component('Icon', 'Input').properties.name).toEqual({ type: 'string', maxLength: 64 });
    expect(component('Value', 'Input').properties.value).toEqual({ type: 'string', maxLength: 128 });
    expect(component('GenericActivityContent', 'Input').properties.state.anyOf[0]).toEqual({ type: 'string', maxLength: 32 });
    expect(component('GenericActivityContent', 'Input').properties.remaining_time.anyOf[0]).toMatchObject({ type: 'integer', minimum: 0 });
    expect(component('ProgressActivityContent', 'Input').properties.tap_url.anyOf[0]).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 256,
      format: 'uri',
    });
    expect(component('WidgetData', 'Input').properties.stale_after.anyOf[0]).toEqual({ type: 'integer', minimum: 60, maximum: 604800 });
    expect(component('BudgetWidgetContent', 'Input').properties.currency).toEqual({ type: 'string', pattern: '^[A-Z]{3}$' });
    expect(component('CountdownWidgetContent', 'Input').properties.target).toEqual({ type: 'string', format: 'date-time' });
    expect(component('SwitchboardWidgetContent', 'Input').properties.actions).toMatchObject({ minItems: 1, maxItems: 8 });
    expect(component('SwitchboardPicture', 'Input').properties.url).toMatchObject({ maxLength: 256, pattern: '^https://' });
    expect(component('BudgetTotal', 'Input').properties.budget.anyOf[0]).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(component('PressReport', 'Input').properties.request_id).toEqual({ type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' });
  });

  it('unions are oneOf over the named branches', () => {
    expect(component('ProgressBar', 'Input').oneOf).toEqual([
      { $ref: '#/components/schemas/SimpleProgressBar-Input' },
      { $ref: '#/components/schemas/SegmentedProgressBar-Input' },
    ]);
    expect(component('ActivityContent', 'Output').oneOf.map((branch: Json) => branch.$ref)).toEqual(
      ['Progress', 'Monitor', 'Generic'].map((name) => `#/components/schemas/${name}ActivityContent-Output`),
    );
    expect(component('WidgetContent', 'Input').oneOf).toHaveLength(widgetTemplateNames.length);
    expect(component('SwitchboardAction', 'Input').oneOf).toEqual([
      { $ref: '#/components/schemas/SwitchboardButton-Input' },
      { $ref: '#/components/schemas/SwitchboardToggle-Input' },
    ]);
    expect(component('GenericActivityContent', 'Input').properties.icon.oneOf).toEqual([
      { type: 'string', maxLength: 64 },
      { $ref: '#/components/schemas/Icon-Input' },
      { type: 'null' },
    ]);
  });

  it('has on only on toggles and active only on buttons', () => {
    expect(component('SwitchboardToggle', 'Input').required).toContain('on');
    expect(component('SwitchboardToggle', 'Input').properties.active).toBeUndefined();
    expect(component('SwitchboardButton', 'Input').properties.on).toBeUndefined();
    expect(component('SwitchboardButton', 'Output').required).toContain('active');
  });

  it('the activity echo carries icon_v2; widget content does not', () => {
    for (const name of ['Progress', 'Monitor', 'Generic']) {
      const output = component(`${name}ActivityContent`, 'Output');
      expect(output.properties.icon_v2).toMatchObject({ anyOf: [{ $ref: '#/components/schemas/Icon-Output' }, { type: 'null' }], readOnly: true });
      expect(output.required).toContain('icon_v2');
      expect(component(`${name}ActivityContent`, 'Input').properties.icon_v2).toBeUndefined();
    }
    for (const name of Object.keys(schemas)) {
      if (name.includes('Widget')) expect(schemas[name]!.properties?.icon_v2, name).toBeUndefined();
    }
  });

  it('output nulls only where the echo can hold null', () => {
    expect(component('GaugeWidgetContent', 'Output').properties.min_value).toEqual({ type: 'number', default: 0 });
    expect(component('GaugeWidgetContent', 'Input').properties.min_value.anyOf).toEqual([{ type: 'number' }, { type: 'null' }]);
    expect(component('WidgetData', 'Output').required).toEqual(['content', 'stale_after']);
    expect(component('WidgetData', 'Input').required).toEqual(['content']);
  });

  // The drift guard: every object component has exactly the validator's fields, requires
  // in input exactly what the validator requires, and requires everything in output.
  it.each(namedSchemas.filter((entry) => objectOf(entry.input) !== undefined).map((entry) => [entry.name, entry] as const))(
    '%s matches its validator',
    (name, entry) => {
      for (const [mode, schema] of [
        ['Input', entry.input],
        ['Output', entry.output ?? entry.input],
      ] as const) {
        const object = objectOf(schema)!;
        const json = component(name, mode);
        const keys = Object.keys(object.entries);
        expect(Object.keys(json.properties), `${name}-${mode}`).toEqual(keys);
        const optional = (key: string) => ['optional', 'nullish', 'exact_optional'].includes(object.entries[key]!.type);
        expect(json.required, `${name}-${mode}`).toEqual(mode === 'Output' ? keys : keys.filter((key) => !optional(key)));
        if (object.type === 'strict_object') expect(json.additionalProperties).toBe(false);
      }
    },
  );
});
