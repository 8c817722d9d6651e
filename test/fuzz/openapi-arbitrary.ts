/**
 * fast-check arbitraries for the values a JSON Schema of `/openapi.json` allows: every
 * keyword the document's request schemas use, and nothing else (an unknown keyword is an
 * error, not a value that might not fit). What the document says in words (rules between
 * fields, the webhook URL's host, the placeholders, the header names refused) is honoured
 * by `rules`, named by component, and by the URL arbitrary here. Strings keep to what the
 * document says of lengths: UTF-16 code units (`info.description`).
 */
import fc from 'fast-check';

export type Schema = Record<string, unknown>;

export interface SchemaContext {
  /** `components.schemas` of the document. */
  components: Record<string, Schema>;
  /** Per component name: a filter for the rules its description says in words. */
  rules?: Record<string, (value: any) => boolean>;
}

/** Keywords that only annotate. */
const ANNOTATIONS = new Set(['description', 'title', 'default', 'examples']);
/** Keywords this generator reads; any other in a schema fails the test (it would be ignored). */
const READ = new Set([
  '$ref',
  'type',
  'const',
  'enum',
  'anyOf',
  'oneOf',
  'allOf',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'exclusiveMinimum',
]);

/** Most items and entries generated in one list or map: requests stay small. */
const MAX_GENERATED_ITEMS = 3;

export function arbitraryOf(schema: Schema, context: SchemaContext): fc.Arbitrary<unknown> {
  for (const keyword of Object.keys(schema)) {
    if (!READ.has(keyword) && !ANNOTATIONS.has(keyword)) throw new Error(`the generator does not read "${keyword}" (${JSON.stringify(schema).slice(0, 200)})`);
  }
  if (typeof schema.$ref === 'string') return referenced(schema.$ref, context);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  if (schema.type === 'object' && Array.isArray(schema.anyOf)) return objectWithOneOf(schema, context);
  const union = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (union !== undefined) return fc.oneof(...union.map((branch) => arbitraryOf(branch, context)));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: bound(schema.minimum, -1e9), max: bound(schema.maximum, 1e9) });
    case 'number':
      return numbers(schema);
    case 'string':
      return strings(schema);
    case 'array':
      return arrays(schema, context);
    case 'object':
      return objects(schema, context);
    case undefined:
      return anyJson();
    default:
      throw new Error(`the generator does not know the type ${JSON.stringify(schema.type)}`);
  }
}

/** Each component's arbitrary, made once per context. */
const made = new WeakMap<SchemaContext, Map<string, fc.Arbitrary<unknown>>>();

function referenced(ref: string, context: SchemaContext): fc.Arbitrary<unknown> {
  const name = ref.replace('#/components/schemas/', '');
  const target = context.components[name];
  if (target === undefined) throw new Error(`no component ${name}`);
  let cache = made.get(context);
  if (cache === undefined) made.set(context, (cache = new Map()));
  const known = cache.get(name);
  if (known !== undefined) return known;
  // Made on first use, when a component refers to itself (none does yet) as well.
  const later = fc.constant(null).chain(() => cache.get(name)!);
  cache.set(name, later);
  const rule = context.rules?.[name];
  const arbitrary = rule === undefined ? arbitraryOf(target, context) : arbitraryOf(target, context).filter(rule);
  cache.set(name, arbitrary);
  return arbitrary;
}

const bound = (value: unknown, fallback: number): number => (typeof value === 'number' ? value : fallback);

function numbers(schema: Schema): fc.Arbitrary<number> {
  const min = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : bound(schema.minimum, -1e9);
  return fc.double({ min, max: bound(schema.maximum, 1e9), minExcluded: typeof schema.exclusiveMinimum === 'number', noNaN: true, noDefaultInfinity: true });
}

/** Code units, as the document counts them. */
const fitsLength = (schema: Schema) => (text: string) => text.length >= bound(schema.minLength, 0) && text.length <= bound(schema.maxLength, 64);

function patternsOf(schema: Schema): RegExp[] {
  const own = typeof schema.pattern === 'string' ? [schema.pattern] : [];
  const more = ((schema.allOf as Schema[] | undefined) ?? []).map((part) => {
    const keys = Object.keys(part);
    if (keys.length !== 1 || typeof part.pattern !== 'string') throw new Error(`the generator reads allOf of patterns only: ${JSON.stringify(part)}`);
    return part.pattern;
  });
  // With the `u` flag, as validators of JSON Schema read patterns.
  return [...own, ...more].map((pattern) => new RegExp(pattern, 'u'));
}

function strings(schema: Schema): fc.Arbitrary<string> {
  const patterns = patternsOf(schema);
  const fits = (text: string) => fitsLength(schema)(text) && patterns.every((pattern) => pattern.test(text));
  if (schema.format === 'date-time') {
    return fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2099-12-31T23:59:59Z'), noInvalidDate: true }).map((date) => date.toISOString());
  }
  // A URI, or a webhook URL: `https://` and, as its description says, maybe placeholders.
  const https = patterns.some((pattern) => pattern.source === '^https:\\/\\/');
  if (schema.format === 'uri' || https) return urls(https, schema.format !== 'uri').filter(fits);
  // A pattern of its own other than the document's "holdable" one: strings of that pattern.
  const [own] = patterns;
  if (own !== undefined && typeof schema.pattern === 'string' && !schema.pattern.startsWith('^(?:[^\\u0000'))
    return patterned(schema.pattern, schema).filter(fits);
  const maxLength = Math.min(bound(schema.maxLength, 64), 48);
  return fc.string({ unit: textUnit, minLength: bound(schema.minLength, 0), maxLength }).filter(fits);
}

/**
 * Strings of `pattern` within the schema's lengths. A pattern that is one repeated character
 * class (`^[0-9A-Fa-f]+$`) is generated class character by class character, at the lengths
 * the schema allows (`fc.stringMatching` knows nothing of lengths: a 16-character minimum
 * would almost never come out of it).
 */
function patterned(pattern: string, schema: Schema): fc.Arbitrary<string> {
  const repeated = /^\^(\[[^\]]+\])(\+|\*|\{(\d+),(\d+)\})\$$/.exec(pattern);
  if (repeated === null) return fc.stringMatching(new RegExp(pattern, 'u'));
  const [, characterClass, quantifier, low, high] = repeated;
  const fewest = quantifier === '*' ? 0 : quantifier === '+' ? 1 : Number(low);
  const minLength = Math.max(bound(schema.minLength, 0), fewest);
  const maxLength = Math.min(bound(schema.maxLength, minLength + 40), high === undefined ? Number.MAX_SAFE_INTEGER : Number(high), minLength + 40);
  return fc.string({ unit: fc.stringMatching(new RegExp(`^${characterClass}$`, 'u')), minLength, maxLength });
}

/** Any character a text may hold, astral ones (two code units) and a NUL or a lone surrogate (which the filter drops) included. */
const textUnit = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('a', 'Z', '0', ' ', '-', 'é', 'ß', '中', '"', '\\', '/', '\t', '\n', '\u2028', '%', '{', '}') },
  { weight: 2, arbitrary: fc.constantFrom('😀', '𝄞', '🏠') },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\uD83D', '\uDE00') },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);

/**
 * URLs as the document describes them: absolute, and where they must be `https://`, with a
 * public host, no port, no credentials (the webhook URL's description), and, for a webhook
 * URL (a URI template, so no `format: uri`), maybe some of the known placeholders.
 */
function urls(httpsOnly: boolean, placeholders: boolean): fc.Arbitrary<string> {
  const host = fc.constantFrom('hooks.example.com', 'example.org', 'api.example.net', '93.184.216.34');
  const word = fc.stringMatching(/^[a-z0-9_-]{1,12}$/);
  const segment = placeholders ? fc.oneof(word, fc.constantFrom('{{action}}', '{{slug}}', 'x{{event_id}}')) : word;
  const path = fc.array(segment, { maxLength: 3 }).map((parts) => parts.join('/'));
  const https = fc.tuple(host, path).map(([name, rest]) => `https://${name}/${rest}`);
  return httpsOnly ? https : fc.oneof(https, fc.constantFrom('myapp://open/1', 'shortcuts://run-shortcut?name=Lights'));
}

function arrays(schema: Schema, context: SchemaContext): fc.Arbitrary<unknown[]> {
  const items = schema.items as Schema | undefined;
  if (items === undefined) throw new Error('an array without items');
  const minLength = bound(schema.minItems, 0);
  return fc.array(arbitraryOf(items, context), {
    minLength,
    maxLength: Math.min(bound(schema.maxItems, MAX_GENERATED_ITEMS), minLength + MAX_GENERATED_ITEMS),
  });
}

function objects(schema: Schema, context: SchemaContext): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties as Record<string, Schema> | undefined) ?? {};
  const additional = schema.additionalProperties;
  if (typeof additional === 'object' && additional !== null) {
    const keys = schema.propertyNames === undefined ? fc.string() : (arbitraryOf(schema.propertyNames as Schema, context) as fc.Arbitrary<string>);
    const maxKeys = Math.min(bound(schema.maxProperties, MAX_GENERATED_ITEMS), MAX_GENERATED_ITEMS);
    return fc.dictionary(keys, arbitraryOf(additional as Schema, context), { maxKeys, noNullPrototype: true });
  }
  if (additional !== false && Object.keys(properties).length === 0) return fc.constant({});
  const required = (schema.required as string[] | undefined) ?? [];
  const model = Object.fromEntries(Object.entries(properties).map(([key, property]) => [key, arbitraryOf(property, context)]));
  return fc.record(model, { requiredKeys: required });
}

/**
 * An object schema with `anyOf` beside its properties (the "at least one of" rules): one
 * branch's `required` and its narrowing of those properties (not null; a non-empty list).
 */
function objectWithOneOf(schema: Schema, context: SchemaContext): fc.Arbitrary<unknown> {
  const { anyOf, ...base } = schema as Schema & { anyOf: Schema[] };
  return fc.constantFrom(...anyOf).chain((branch) => {
    const properties = { ...(base.properties as Record<string, Schema>) };
    for (const [key, narrowing] of Object.entries((branch.properties as Record<string, Schema> | undefined) ?? {})) {
      properties[key] = narrowed(properties[key]!, narrowing);
    }
    const required = [...new Set([...((base.required as string[] | undefined) ?? []), ...((branch.required as string[] | undefined) ?? [])])];
    return objects({ ...base, properties, required }, context);
  });
}

function narrowed(property: Schema, narrowing: Schema): Schema {
  const alternatives = (property.anyOf as Schema[] | undefined) ?? [property];
  const notNull = alternatives.filter((alternative) => alternative.type !== 'null');
  if (JSON.stringify(narrowing) === '{"not":{"type":"null"}}') return { anyOf: notNull };
  if (narrowing.type === 'array' && typeof narrowing.minItems === 'number') {
    return { anyOf: notNull.map((alternative) => ({ ...alternative, minItems: Math.max(bound(alternative.minItems, 0), narrowing.minItems as number) })) };
  }
  throw new Error(`the generator cannot narrow by ${JSON.stringify(narrowing)}`);
}

/**
 * Any JSON value, as a schema without keywords allows (a webhook body template), keeping to
 * what its description says: holdable strings (`textUnit` then the filter) and no `{{`
 * other than a known placeholder (none are generated).
 */
function anyJson(): fc.Arbitrary<unknown> {
  const text = fc.string({ unit: textUnit, maxLength: 16 }).filter((value) => value.isWellFormed() && !value.includes('\u0000') && !value.includes('{{'));
  return fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant(null), fc.boolean(), fc.integer(), text, tie('array'), tie('object')),
    array: fc.array(tie('value'), { maxLength: MAX_GENERATED_ITEMS }),
    object: fc.dictionary(text, tie('value'), { maxKeys: MAX_GENERATED_ITEMS, noNullPrototype: true }),
  })).value;
}
