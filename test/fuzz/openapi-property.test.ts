/**
 * Property test (issue 32, item 11): `/openapi.json` says what the server takes. Requests
 * generated from the document the server serves (its schemas, and what it says in words:
 * see ./openapi-arbitrary.ts) are never refused and never a 5xx; requests the document
 * refuses (one thing broken in a valid one) are a 4xx. On memory and PostgreSQL storage,
 * through the node-http adapter (the adapters translate the same answers: test/adapters).
 *
 * Covered: the bodies of `PATCH /activity/{id}`, `PATCH /widget/{slug}` (every template),
 * `PUT /widget/{slug}/webhooks`, `PUT /device/push`, `PUT /device/fcm`, `PUT /device/activities/{owner}/{slug}/push`,
 * and the `subject` filter of `GET /events` (asked with `HEAD`, which checks the filters as
 * the `GET` does and opens no stream: a property run would otherwise meet the 4-stream
 * limit). Not covered: `POST /device/presses`, whose fields name the widget's current
 * actions and which a rate limit refuses (test/fuzz/endpoints.fuzz.test.ts fuzzes it).
 *
 * Seeded and bounded; a failure names the seed and the counterexample's path. Replay with
 *   TILECAST_PROPERTY_SEED=<seed> TILECAST_PROPERTY_PATH=<path> npx vitest run test/fuzz/openapi-property.test.ts -t '<name>'
 * Settings: TILECAST_PROPERTY_SEED (default 32), TILECAST_PROPERTY_RUNS (per property, default 20).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activityTemplateNames, widgetTemplateNames } from '../../packages/core/src/schemas/index.js';
import { REFUSED_HEADER_NAMES, WEBHOOK_BODY_MAX_BYTES, WEBHOOK_HEADERS_MAX_BYTES } from '../../packages/core/src/webhooks/map-schema.js';
import { request, startApi, type ApiServer, type Reply } from '../support/api-server.js';
import { openStore, stores, type TestStore } from '../support/stores.js';
import { arbitraryOf, type Schema, type SchemaContext } from './openapi-arbitrary.js';
import { integerSetting } from './settings.js';

const SEED = integerSetting('TILECAST_PROPERTY_SEED', 32);
const RUNS = integerSetting('TILECAST_PROPERTY_RUNS', 20);
const REPLAY_PATH = process.env.TILECAST_PROPERTY_PATH || undefined;
const settings = { seed: SEED, numRuns: RUNS, path: REPLAY_PATH, endOnFailure: true };

interface OpenApi {
  paths: Record<string, Record<string, { parameters?: { name: string; schema: Schema }[]; requestBody?: { content: Record<string, { schema: Schema }> } }>>;
  components: { schemas: Record<string, Schema> };
}

/** The rules the document says in words, per component (see the components' descriptions). */
const rules: SchemaContext['rules'] = {
  'GaugeWidgetContent-Input': (content) => (content.max_value ?? 100) > (content.min_value ?? 0),
  'SwitchboardWidgetContent-Input': (content) => new Set(content.actions.map((action: { id: string }) => action.id)).size === content.actions.length,
  'PricesWidgetContent-Input': (content) =>
    content.entries.every((entry: { start: string }, i: number) => i === 0 || Date.parse(entry.start) > Date.parse(content.entries[i - 1].start)),
  'WebhookEntry-Input': (entry) => headersAllowed(entry.headers ?? {}) && Buffer.byteLength(JSON.stringify(entry.body ?? null)) <= WEBHOOK_BODY_MAX_BYTES,
};

function headersAllowed(headers: Record<string, string>): boolean {
  const lower = Object.keys(headers).map((name) => name.toLowerCase());
  const size = Object.entries(headers).reduce((total, [name, value]) => total + Buffer.byteLength(name) + Buffer.byteLength(value), 0);
  return (
    new Set(lower).size === lower.length &&
    lower.every((name) => !(REFUSED_HEADER_NAMES as readonly string[]).includes(name) && !name.startsWith('x-svc-')) &&
    size <= WEBHOOK_HEADERS_MAX_BYTES
  );
}

/** One operation with a JSON body: where it goes, its body schema, how to authenticate. */
interface BodyCase {
  name: string;
  method: string;
  path: string;
  schema: Schema;
  auth: 'publisher' | 'device';
  /** Answers of a valid body. */
  accepted: number[];
  /** The document lets the resource's own `template` be left out of `content`. */
  templateOptional?: boolean;
}

const branchOf = (union: Schema, template: string): Schema =>
  (union.anyOf as { $ref: string }[]).find((branch) => branch.$ref.includes(`/${template[0]!.toUpperCase()}${template.slice(1)}`))!;

function bodyCases(doc: OpenApi): BodyCase[] {
  const schemas = doc.components.schemas;
  const bodyOf = (path: string, method: string) => doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;
  // `content` narrowed to the branch of the resource's template, as the union's description says.
  const withContent = (data: Schema, union: string, template: string): Schema => {
    const resolved = schemas[(data.$ref as string).replace('#/components/schemas/', '')]!;
    const properties = resolved.properties as Record<string, Schema>;
    return { ...resolved, properties: { ...properties, content: branchOf(schemas[union]!, template) } };
  };
  return [
    ...widgetTemplateNames.map((template) => ({
      name: `PATCH /widget/{slug} (${template})`,
      method: 'PATCH',
      path: `/widget/w-${template}`,
      schema: withContent(bodyOf('/widget/{slug}', 'patch'), 'WidgetContent-Input', template),
      auth: 'publisher' as const,
      accepted: [200],
      templateOptional: true,
    })),
    ...activityTemplateNames.map((template) => ({
      name: `PATCH /activity/{activity_id} (${template})`,
      method: 'PATCH',
      path: `/activity/a-${template}`,
      schema: withContent(bodyOf('/activity/{activity_id}', 'patch'), 'ActivityContent-Input', template),
      auth: 'publisher' as const,
      accepted: [200],
      templateOptional: true,
    })),
    {
      name: 'PUT /widget/{slug}/webhooks',
      method: 'PUT',
      path: '/widget/w-switchboard/webhooks',
      schema: bodyOf('/widget/{slug}/webhooks', 'put'),
      auth: 'publisher',
      accepted: [200],
    },
    { name: 'PUT /device/push', method: 'PUT', path: '/device/push', schema: bodyOf('/device/push', 'put'), auth: 'device', accepted: [204] },
    { name: 'PUT /device/fcm', method: 'PUT', path: '/device/fcm', schema: bodyOf('/device/fcm', 'put'), auth: 'device', accepted: [204] },
    {
      name: 'PUT /device/activities/{owner}/{slug}/push',
      method: 'PUT',
      path: '/device/activities/prop/a-progress/push',
      schema: bodyOf('/device/activities/{owner}/{slug}/push', 'put'),
      auth: 'device',
      accepted: [204],
    },
  ];
}

/** A valid body of `bodyCase`, `template` maybe left out where the document allows it. */
function validBodies(bodyCase: BodyCase, context: SchemaContext): fc.Arbitrary<any> {
  const bodies = arbitraryOf(bodyCase.schema, context);
  if (!bodyCase.templateOptional) return bodies;
  return fc.tuple(bodies, fc.boolean()).map(([body, leaveOut]: [any, boolean]) => {
    if (!leaveOut) return body;
    const { template: _template, ...content } = body.content;
    return { ...body, content };
  });
}

/** One thing the document forbids, done to a valid body. */
type Breakage = 'unknown field' | 'missing field' | 'NUL in a string' | 'lone surrogate in a string' | 'wrong type';

function broken(body: Record<string, unknown>, schema: Schema, breakage: Breakage, pick: number): unknown {
  switch (breakage) {
    case 'unknown field':
      return { ...body, zz_unknown: 1 };
    case 'missing field': {
      const required = (schema.required as string[] | undefined) ?? Object.keys(body);
      const { [required[pick % required.length]!]: _gone, ...rest } = body;
      return rest;
    }
    case 'wrong type':
      return { ...body, [Object.keys(body)[pick % Object.keys(body).length]!]: [[]] };
    case 'NUL in a string':
    case 'lone surrogate in a string':
      return withBadString(body, breakage === 'NUL in a string' ? 'a\u0000b' : 'a\uDE00', pick);
  }
}

/** `body` with one string (a value, or a key where there is no value to change) made `bad`. */
function withBadString(body: unknown, bad: string, pick: number): unknown {
  const copy = structuredClone(body) as Record<string, unknown>;
  const strings: [Record<string, unknown> | unknown[], string | number][] = [];
  const walk = (node: unknown) => {
    if (Array.isArray(node)) node.forEach((item, i) => (typeof item === 'string' ? strings.push([node, i]) : walk(item)));
    else if (node !== null && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) typeof value === 'string' ? strings.push([node as Record<string, unknown>, key]) : walk(value);
    }
  };
  walk(copy);
  if (strings.length === 0) return { ...copy, [`k${bad}`]: 1 };
  const [holder, key] = strings[pick % strings.length]!;
  (holder as Record<string | number, unknown>)[key] = `${(holder as Record<string | number, string>)[key]}${bad}`;
  return copy;
}

const breakages: Breakage[] = ['unknown field', 'missing field', 'NUL in a string', 'lone surrogate in a string', 'wrong type'];

describe.each(stores)('requests generated from /openapi.json, on %s storage', (store) => {
  let api: ApiServer;
  let testStore: TestStore;
  let doc: OpenApi;
  let publisher: string;
  let device: string;
  let context: SchemaContext;
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);

  beforeAll(async () => {
    testStore = await openStore(store);
    api = await startApi('node-http', { storage: testStore.storage });
    const m = api.tilecast.management;
    ({ token: publisher } = await m.createAccount({ id: 'prop', activityQuota: 100 }));
    ({ token: device } = await m.registerDevice({ id: 'prop-phone', account: 'prop' }));
    for (const template of widgetTemplateNames) await m.createWidget({ account: 'prop', slug: `w-${template}`, template });
    for (const template of activityTemplateNames) await m.createActivity({ account: 'prop', slug: `a-${template}`, template });
    const served = await request(api, 'GET', '/openapi.json');
    expect(served.status).toBe(200);
    doc = served.body as OpenApi;
    context = { components: doc.components.schemas, rules };
    ajv.addSchema({ $id: 'doc', components: doc.components });
  });
  afterAll(async () => {
    await api?.close();
    await testStore?.release();
  });

  const send = (bodyCase: BodyCase, body: unknown): Promise<Reply> =>
    request(api, bodyCase.method, bodyCase.path, {
      authorization: bodyCase.auth === 'publisher' ? `Token ${publisher}` : `Device ${device}`,
      body,
    });
  /** The document's verdict on `body`: the schema as a validator reads it (what the generator may not get wrong). */
  const documentAccepts = (schema: Schema, body: unknown) => ajv.validate(schema, body);
  const resolve = (schema: Schema): Schema => JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"doc#/components/schemas/'));

  it('every valid body is accepted (never refused, never a 5xx); every body with one thing broken is a 4xx', async () => {
    for (const bodyCase of bodyCases(doc)) {
      const schema = resolve(bodyCase.schema);
      await fc.assert(
        fc.asyncProperty(validBodies(bodyCase, context), async (body) => {
          expect(documentAccepts(schema, body), `${bodyCase.name}: the generator made a body the document refuses: ${JSON.stringify(ajv.errors)}`).toBe(true);
          const reply = await send(bodyCase, body);
          expect(bodyCase.accepted, `${bodyCase.name} refused ${JSON.stringify(body)}: ${reply.status} ${JSON.stringify(reply.body)}`).toContain(reply.status);
        }),
        settings,
      );
      await fc.assert(
        fc.asyncProperty(validBodies(bodyCase, context), fc.constantFrom(...breakages), fc.nat(), async (valid, breakage, pick) => {
          const body = broken(valid, bodyCase.schema, breakage, pick);
          // Only what the document refuses (a body without required fields has none to leave out).
          fc.pre(!documentAccepts(schema, body));
          const reply = await send(bodyCase, body);
          expect(reply.status >= 400 && reply.status < 500, `${bodyCase.name}, ${breakage}: ${reply.status} for ${JSON.stringify(body)}`).toBe(true);
        }),
        { ...settings, numRuns: Math.ceil(RUNS / 2) },
      );
    }
    // Every request body of the document in one test: its time grows with the routes.
  }, 90_000);

  it('the cases the issue names: {"content":{}} for a switchboard widget, an empty header name, an empty subject filter', async () => {
    const widget = bodyCases(doc).find((bodyCase) => bodyCase.path === '/widget/w-switchboard')!;
    expect(documentAccepts(resolve(doc.paths['/widget/{slug}']!.patch!.requestBody!.content['application/json']!.schema), { content: {} })).toBe(false);
    expect((await send(widget, { content: {} })).status).toBe(422);
    const webhooks = bodyCases(doc).find((bodyCase) => bodyCase.name === 'PUT /widget/{slug}/webhooks')!;
    const emptyName = { webhooks: { '*': { url: 'https://hooks.example.com/a', headers: { '': 'v' } } } };
    expect(documentAccepts(resolve(webhooks.schema), emptyName)).toBe(false);
    expect((await send(webhooks, emptyName)).status).toBe(422);
    const subject = subjectSchema(doc);
    expect(ajv.validate(subject, [''])).toBe(false);
    expect((await request(api, 'HEAD', '/events?subject=', { token: publisher })).status).toBe(422);
  });

  it('a subject filter the document allows is taken; one it refuses is a 422', async () => {
    const subject = subjectSchema(doc);
    // A query value is UTF-8 on the wire: a lone surrogate cannot be sent at all.
    const items = (arbitraryOf(subject.items as Schema, context) as fc.Arbitrary<string>).filter((value) => value.isWellFormed());
    const itemPattern = new RegExp((subject.items as Schema).pattern as string, 'u');
    const query = (values: string[]) => `/events?${values.map((value) => `subject=${encodeURIComponent(value)}`).join('&')}`;
    await fc.assert(
      fc.asyncProperty(fc.array(items, { minLength: 1, maxLength: 3 }), async (values) => {
        expect(ajv.validate(subject, values)).toBe(true);
        const reply = await request(api, 'HEAD', query(values), { token: publisher });
        expect(reply.status, `${JSON.stringify(values)}: ${reply.status}`).toBe(200);
      }),
      settings,
    );
    // Well-formed text (a query value is UTF-8 on the wire), the pattern not matched.
    const refused = fc.string({ unit: 'grapheme', maxLength: 20 }).filter((value) => !itemPattern.test(value));
    await fc.assert(
      fc.asyncProperty(refused, async (value) => {
        expect(ajv.validate(subject, [value])).toBe(false);
        expect((await request(api, 'HEAD', query([value]), { token: publisher })).status).toBe(422);
      }),
      settings,
    );
  });
});

function subjectSchema(doc: OpenApi): Schema {
  return doc.paths['/events']!.get!.parameters!.find((parameter) => parameter.name === 'subject')!.schema;
}
