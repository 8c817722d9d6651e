import { Validator } from '@seriousme/openapi-schema-validator';
import fc from 'fast-check';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type * as v from 'valibot';
import { beforeAll, describe, expect, it } from 'vitest';
import { namedSchemas } from '../../src/openapi/components.js';
import { buildOpenApiDocument } from '../../src/openapi/document.js';
import { Color, widgetTemplateNames } from '../../src/schemas/index.js';
import type { ServiceError } from '../../src/errors.js';
import { errorToResult } from '../../src/http/error-response.js';
import { HOLDABLE_STRING_PATTERN as HOLDABLE } from '../../src/http/body.js';
import { isHoldable } from '../../src/storage/holdable.js';
import { deviceRoutes, publisherRoutes } from '../../src/handlers/routes.js';
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

const component = (name: string, mode: 'Input' | 'Output'): Json => (schemas[`${name}-${mode}`] ?? schemas[name])!;

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

  it('lists every public operation, not /openapi.json', () => {
    expect(Object.keys(doc.paths)).toEqual([
      '/activity/{activity_id}',
      '/widget/{slug}',
      '/widget/{slug}/webhooks',
      '/events',
      '/device/presses',
      '/device/stream',
      '/device/push',
      '/device/fcm',
      '/device/activities/{owner}/{slug}/push',
      '/device/widgets',
      '/device/widgets/{owner}/{slug}',
      '/device/activities',
    ]);
    expect(Object.keys(doc.paths['/events'])).toEqual(['get']);
    expect(Object.keys(doc.paths['/device/presses'])).toEqual(['post']);
    expect(Object.keys(doc.paths['/device/stream'])).toEqual(['get']);
    expect(Object.keys(doc.webhooks)).toEqual(['widget.action.v1']);
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
    expect(Object.keys(operation.responses)).toEqual(['200', '400', '401', '402', '404', '413', '415', '422', '503']);
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: `#/components/schemas/${data}-Output` });
    for (const status of ['400', '401', '402', '404', '413', '415', '503']) {
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
    expect(component('Segment', 'Input').properties.label.anyOf[0]).toEqual({ type: 'string', maxLength: 64, pattern: HOLDABLE });
    expect(component('SegmentedProgressBar', 'Input').properties.segments).toMatchObject({ type: 'array', minItems: 1, maxItems: 4 });
    expect(component('Segment', 'Input').properties.value).toEqual({ type: 'number', minimum: 0, maximum: 1 });
    expect(component('Icon', 'Input').properties.name).toEqual({ type: 'string', maxLength: 64, pattern: HOLDABLE });
    expect(component('Value', 'Input').properties.value).toEqual({ type: 'string', maxLength: 128, pattern: HOLDABLE });
    expect(component('GenericActivityContent', 'Input').properties.state.anyOf[0]).toEqual({ type: 'string', maxLength: 32, pattern: HOLDABLE });
    expect(component('GenericActivityContent', 'Input').properties.remaining_time.anyOf[0]).toMatchObject({ type: 'integer', minimum: 0 });
    expect(component('ProgressActivityContent', 'Input').properties.tap_url.anyOf[0]).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 256,
      format: 'uri',
    });
    expect(component('WidgetData', 'Input').properties.stale_after.anyOf[0]).toEqual({ type: 'integer', minimum: 60, maximum: 604800 });
    expect(component('BudgetWidgetContent', 'Input').properties.currency).toEqual({ type: 'string', pattern: '^[A-Z]{3}$', allOf: [{ pattern: HOLDABLE }] });
    expect(component('CountdownWidgetContent', 'Input').properties.target).toEqual({ type: 'string', format: 'date-time' });
    expect(component('SwitchboardWidgetContent', 'Input').properties.actions).toMatchObject({ minItems: 1, maxItems: 8 });
    expect(component('SwitchboardPicture', 'Input').properties.url).toMatchObject({ maxLength: 256, pattern: '^https://' });
    expect(component('BudgetTotal', 'Input').properties.budget.anyOf[0]).toEqual({ type: 'number', exclusiveMinimum: 0 });
    expect(component('PressReport', 'Input').properties.request_id).toEqual({
      type: 'string',
      minLength: 1,
      maxLength: 128,
      pattern: '^[A-Za-z0-9_-]+$',
      allOf: [{ pattern: HOLDABLE }],
    });
  });

  it('unions are oneOf over the named branches; anyOf in requests that may leave the tag out', () => {
    expect(component('ProgressBar', 'Input').anyOf).toEqual([
      { $ref: '#/components/schemas/SimpleProgressBar-Input' },
      { $ref: '#/components/schemas/SegmentedProgressBar-Input' },
    ]);
    expect(component('ActivityContent', 'Output').oneOf.map((branch: Json) => branch.$ref)).toEqual(
      ['Progress', 'Monitor', 'Generic'].map((name) => `#/components/schemas/${name}ActivityContent-Output`),
    );
    expect(component('ProgressBar', 'Output').oneOf).toEqual([
      { $ref: '#/components/schemas/SimpleProgressBar-Output' },
      { $ref: '#/components/schemas/SegmentedProgressBar-Output' },
    ]);
    expect(component('WidgetContent', 'Input').anyOf).toHaveLength(widgetTemplateNames.length);
    expect(component('WidgetContent', 'Output').oneOf).toHaveLength(widgetTemplateNames.length);
    expect(component('ActivityContent', 'Input').anyOf).toHaveLength(3);
    expect(component('SwitchboardAction', 'Input').anyOf).toEqual([
      { $ref: '#/components/schemas/SwitchboardButton-Input' },
      { $ref: '#/components/schemas/SwitchboardToggle-Input' },
    ]);
    expect(component('GenericActivityContent', 'Input').properties.icon.oneOf).toEqual([
      { type: 'string', maxLength: 64, pattern: HOLDABLE },
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
  // (A component only requests use, or only responses, is listed in that mode only.)
  it.each(namedSchemas.filter((entry) => objectOf(entry.input) !== undefined).map((entry) => [entry.name, entry] as const))(
    '%s matches its validator',
    (name, entry) => {
      for (const [mode, schema] of [
        ['Input', entry.input],
        ['Output', entry.output ?? entry.input],
      ] as const) {
        const object = objectOf(schema)!;
        const json = component(name, mode);
        if (json === undefined) continue;
        const keys = Object.keys(object.entries);
        expect(Object.keys(json.properties), `${name}-${mode}`).toEqual(keys);
        const optional = (key: string) => ['optional', 'nullish', 'exact_optional'].includes(object.entries[key]!.type);
        const everyField = mode === 'Output' && entry.asDeclared !== true;
        expect(json.required, `${name}-${mode}`).toEqual(everyField ? keys : keys.filter((key) => !optional(key)));
        if (object.type === 'strict_object') expect(json.additionalProperties).toBe(false);
      }
    },
  );
});

describe('the whole public API', () => {
  const example = (operation: Json, status: string) => operation.responses[status].content['application/json'].example;
  const result = (kind: string) => (errorToResult({ kind } as ServiceError) as { body: unknown }).body;

  it('has servers (the serving host by default, or the configured ones) and the MIT license', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect((buildOpenApiDocument({ servers: [{ url: 'https://api.example.com/tilecast' }] }) as Json).servers).toEqual([
      { url: 'https://api.example.com/tilecast' },
    ]);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('GET /events: repeatable filters, Last-Event-ID, an event stream, 422 and 429', () => {
    const events = doc.paths['/events'].get;
    expect(events.parameters.map((parameter: Json) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ['types', 'query', false],
      ['subject', 'query', false],
      ['Last-Event-ID', 'header', false],
    ]);
    expect(events.parameters[0]).toMatchObject({ style: 'form', explode: true, schema: { type: 'array', items: { type: 'string' } } });
    expect(Object.keys(events.responses)).toEqual(['200', '401', '402', '422', '429']);
    expect(Object.keys(events.responses['200'].content)).toEqual(['text/event-stream']);
    expect(events.responses['200'].description).toContain('outage');
    expect(events.responses['200'].content['text/event-stream'].example).toMatch(/^retry: 1000\n/);
    expect(example(events, '429')).toEqual(result('too_many_event_streams'));
    expect(example(events, '422').detail).toMatch(/^Invalid subject filter: /);
    expect(events.security).toEqual([{ APIToken: [] }]);
  });

  it('the event envelope is a schema: the body of the webhook request', () => {
    const delivery = doc.webhooks['widget.action.v1'].post;
    expect(delivery.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/EventEnvelope' });
    expect(delivery.parameters.map((parameter: Json) => parameter.name)).toEqual(['Idempotency-Key', 'X-Svc-Timestamp', 'X-Svc-Signature']);
    expect(schemas.EventEnvelope).toMatchObject({
      properties: {
        id: { type: 'string', format: 'uuid' },
        type: { enum: ['widget.action.v1'] },
        subject: { $ref: '#/components/schemas/EventSubject' },
        data: { $ref: '#/components/schemas/WidgetActionData' },
      },
      required: ['id', 'request_id', 'type', 'subject', 'occurred_at', 'expires_at', 'data'],
    });
    expect(schemas.EventEnvelope!.properties.expires_at).toMatchObject({ type: 'string', format: 'date-time' });
    // A button press has no value.
    expect(schemas.WidgetActionData).toMatchObject({
      required: ['action', 'kind'],
      properties: { kind: { enum: ['button', 'toggle'] }, value: { type: 'boolean' } },
    });
  });

  it('the device API has its own security scheme, its refusals and its stream', () => {
    expect(doc.components.securitySchemes.DeviceToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'Authorization' });
    expect(doc.components.securitySchemes.DeviceToken.description).toContain('Device <device token>');
    const press = doc.paths['/device/presses'].post;
    expect(press.security).toEqual([{ DeviceToken: [] }]);
    expect(press.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PressReport-Input' });
    expect(Object.keys(press.responses)).toEqual(['202', '401', '404', '413', '415', '422', '429', '503']);
    expect(press.responses['202'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PressAccepted' });
    expect(example(press, '429')).toEqual(result('too_many_presses'));
    const stream = doc.paths['/device/stream'].get;
    expect(stream.security).toEqual([{ DeviceToken: [] }]);
    expect(Object.keys(stream.responses)).toEqual(['200', '401', '429']);
    expect(example(stream, '429')).toEqual(result('too_many_device_streams'));
    expect(Object.keys(stream.responses['200'].content)).toEqual(['text/event-stream']);
  });

  // The drift guard for routes: a route added to the core without a description fails here.
  it('lists every route the core serves (but /openapi.json), and nothing else', () => {
    const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}').replace(/:[^/]+/g, '{}');
    const served = [...publisherRoutes.map((route) => [route.method, route.pattern]), ...deviceRoutes.map((route) => [route.method, `/device${route.pattern}`])]
      .filter(([, pattern]) => pattern !== '/openapi.json')
      .map(([method, pattern]) => `${method} ${shape(pattern!)}`);
    const listed = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.keys(item as Json)
        .filter((key) => key !== 'parameters')
        .map((method) => `${method.toUpperCase()} ${shape(path)}`),
    );
    expect(listed.sort()).toEqual(served.sort());
  });

  it('the device sync API: APNs tokens in, what the device shows out', () => {
    const push = doc.paths['/device/push'];
    expect(push.put.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/PushRegistration-Input' });
    expect(Object.keys(push.put.responses)).toEqual(['204', '401', '413', '415', '422', '503']);
    expect(component('PushRegistration', 'Input')).toMatchObject({
      required: ['environment'],
      properties: { widgets: { anyOf: [{ type: 'string', minLength: 16, maxLength: 512 }, { type: 'null' }] }, channels: { type: 'boolean' } },
    });
    const fcm = doc.paths['/device/fcm'];
    expect(Object.keys(fcm)).toEqual(['put', 'delete']);
    expect(fcm.put.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/FcmRegistration' });
    expect(Object.keys(fcm.put.responses)).toEqual(['204', '401', '413', '415', '422', '503']);
    expect(Object.keys(fcm.delete.responses)).toEqual(['204', '401', '503']);
    expect(component('FcmRegistration', 'Input')).toMatchObject({
      required: ['token'],
      additionalProperties: false,
      properties: { token: { type: 'string', minLength: 1, maxLength: 4096, pattern: '^[A-Za-z0-9:_-]+$' } },
    });
    const token = doc.paths['/device/activities/{owner}/{slug}/push'];
    expect(example(token.put, '404')).toEqual(result('activity_not_found'));
    expect(doc.paths['/device/widgets'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/DeviceWidgetList-Output',
    });
    expect(component('DeviceWidget', 'Output').properties.content).toMatchObject({
      anyOf: [{ $ref: '#/components/schemas/WidgetContent-Output' }, { type: 'null' }],
    });
    expect(component('DeviceActivity', 'Output').properties.content).toMatchObject({
      anyOf: [{ $ref: '#/components/schemas/ActivityContent-Output' }, { type: 'null' }],
    });
    expect(component('DeviceActivity', 'Output').required).toEqual([
      'owner',
      'slug',
      'template',
      'state',
      'content',
      'dismissal_delay_s',
      'updated_at',
      'channel_id',
    ]);
    expect(component('DeviceActivity', 'Output').properties.channel_id).toMatchObject({ anyOf: [{ type: 'string' }, { type: 'null' }] });
  });

  it('the device API follows where the host mounts it, or is left out', () => {
    expect(Object.keys((buildOpenApiDocument({ devicePath: '/phones/' }) as Json).paths)).toContain('/phones/presses');
    const without = buildOpenApiDocument({ devicePath: null }) as Json;
    expect(Object.keys(without.paths)).toEqual(['/activity/{activity_id}', '/widget/{slug}', '/widget/{slug}/webhooks', '/events']);
    expect(without.components.securitySchemes.DeviceToken).toBeUndefined();
    expect(without.components.schemas['PressReport-Input']).toBeUndefined();
  });

  it('every storage-backed operation can answer 503; every body 413 and 415; with the error table’s details', () => {
    const operations: [string, Json][] = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.entries(item as Json)
        .filter(([key]) => key !== 'parameters')
        .map(([method, operation]) => [`${method} ${path}`, operation as Json] as [string, Json]),
    );
    const streams = ['get /events', 'get /device/stream'];
    for (const [name, operation] of operations) {
      if (streams.includes(name)) expect(operation.responses['503'], name).toBeUndefined();
      else expect(example(operation, '503'), name).toEqual(result('storage_unavailable'));
      if (operation.requestBody === undefined) continue;
      expect(example(operation, '413'), name).toEqual(result('payload_too_large'));
      expect(example(operation, '415'), name).toEqual(result('unsupported_media_type'));
    }
    expect(operations).toHaveLength(17);
  });

  it('request schemas carry no default (generators would make the field required); responses do', () => {
    const defaults = (value: unknown): number => {
      if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + defaults(item), 0);
      if (typeof value !== 'object' || value === null) return 0;
      return Object.entries(value).reduce((sum, [key, child]) => sum + (key === 'default' && typeof child !== 'object' ? 1 : 0) + defaults(child), 0);
    };
    for (const [name, schema] of Object.entries(schemas)) if (!name.endsWith('-Output')) expect(defaults(schema), name).toBe(0);
    expect(component('SimpleProgressBar', 'Input').properties.color).toMatchObject({ $ref: '#/components/schemas/Color', description: 'Default: `"blue"`.' });
    expect(component('SimpleProgressBar', 'Output').properties.color).toMatchObject({ default: 'blue' });
  });
});

describe('says what the server refuses (issue 32)', () => {
  /** The document's schemas as a validator reads them (patterns with the `u` flag, as Ajv does). */
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  beforeAll(() => ajv.addSchema({ $id: 'doc', components: (buildOpenApiDocument() as { components: object }).components }));
  const accepts = (name: string, value: unknown) => ajv.validate({ $ref: `doc#/components/schemas/${name}` }, value);

  it('an empty subject filter, or one not <kind>/<slug>', () => {
    const events = buildOpenApiDocument() as { paths: Record<string, { get: { parameters: { name: string; schema: object }[] } }> };
    const subject = events.paths['/events']!.get.parameters.find((parameter) => parameter.name === 'subject')!.schema;
    for (const value of ['widget/lights', 'activity/a b', 'widget/%00']) expect(ajv.validate(subject, [value]), value).toBe(true);
    for (const value of ['', 'widget/', 'widget', 'lights', 'gadget/lights', 'widget/a/b', '/widget/a'])
      expect(ajv.validate(subject, [value]), value).toBe(false);
  });

  it('strings with a NUL or an unpaired surrogate, in values and keys, and nothing else', () => {
    const press = { owner: 'acme', slug: 'lights', request_id: 'r1', action: 'bell' };
    expect(accepts('PressReport-Input', press)).toBe(true);
    expect(accepts('PressReport-Input', { ...press, owner: 'ac😀me' })).toBe(true);
    for (const bad of ['a\u0000', '\uD83D', 'x\uDE00', '\uDE00\uD83D'])
      expect(accepts('PressReport-Input', { ...press, owner: bad }), JSON.stringify(bad)).toBe(false);
    const map = (headers: Record<string, string>) => ({ webhooks: { '*': { url: 'https://hooks.example.com/a', headers } } });
    expect(accepts('WebhookMap-Input', map({ 'X-Key': 'v' }))).toBe(true);
    expect(accepts('WebhookMap-Input', map({ 'X-Key': 'v\u0000' }))).toBe(false);
    const regex = new RegExp(HOLDABLE);
    for (const text of ['', 'plain', 'é', '😀', '\uFFFF']) expect(regex.test(text) && new RegExp(HOLDABLE, 'u').test(text), text).toBe(true);
  });

  it('the string pattern is the body reader’s rule, read with and without the u flag', () => {
    const codeUnit = fc.oneof(fc.integer({ min: 0, max: 0xffff }), fc.constantFrom(0, 0xd800, 0xdbff, 0xdc00, 0xdfff)).map((unit) => String.fromCharCode(unit));
    const text = fc.oneof(fc.string({ unit: codeUnit, maxLength: 8 }), fc.string({ unit: 'binary', maxLength: 8 }));
    const plain = new RegExp(HOLDABLE);
    const unicode = new RegExp(HOLDABLE, 'u');
    fc.assert(
      fc.property(text, (value) => {
        expect(plain.test(value), JSON.stringify(value)).toBe(isHoldable(value));
        expect(unicode.test(value), JSON.stringify(value)).toBe(isHoldable(value));
      }),
      { seed: 32, numRuns: 2_000 },
    );
  });

  it('an empty webhook header name, a name that is not a token, a value with a control character', () => {
    const map = (headers: Record<string, string>) => ({ webhooks: { '*': { url: 'https://hooks.example.com/a', headers } } });
    for (const headers of [{ '': 'v' }, { 'X Key': 'v' }, { 'X-Key': 'a\r\nb' }, { 'X-Key': 'Ā' }] as Record<string, string>[]) {
      expect(accepts('WebhookMap-Input', map(headers)), JSON.stringify(headers)).toBe(false);
    }
  });

  it('{"content":{}} and other contents that no template takes; without `template`, the resource’s own is read', () => {
    expect(accepts('WidgetData-Input', { content: {} })).toBe(false);
    expect(accepts('WidgetData-Input', { content: { template: 'switchboard' } })).toBe(false);
    expect(accepts('WidgetData-Input', { content: { template: 'status' } })).toBe(false);
    expect(accepts('WidgetData-Input', { content: { template: 'energy', sources: [] } })).toBe(false);
    expect(accepts('WidgetData-Input', { content: { value: { value: '21' } } })).toBe(true);
    expect(component('WidgetContent', 'Input').description).toMatch(/`template` may be left out: the content is then read as the resource's own/);
    expect(component('ActivityContent', 'Input').description).toMatch(/`template` may be left out/);
    expect(component('SwitchboardAction', 'Input').description).toBeUndefined();
    expect(component('GaugeWidgetContent', 'Input').description).toMatch(/`max_value`.*greater than `min_value`/);
    expect(component('SwitchboardWidgetContent', 'Input').properties.actions.description).toMatch(/unique/);
  });
});
