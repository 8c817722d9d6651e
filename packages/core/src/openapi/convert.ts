/**
 * valibot → `components.schemas`, once for requests (input) and once for responses
 * (output), FastAPI style: a component whose two shapes are equal appears once as
 * `Name`; otherwise as `Name-Input` and `Name-Output`.
 *
 * Output shapes. @valibot/to-json-schema 1.8 has `typeMode: 'input' | 'output'`, but it
 * only chooses which end of a pipe to convert; it does not know that an optional field
 * with a default is always present in the output. The service echoes every field (null
 * where unset), so in output mode `overrideSchema` marks every property required and
 * drops `null` from fields that a non-null default replaces.
 */
import { toJsonSchema, toJsonSchemaDefs, type ConversionConfig, type JsonSchema, type OverrideSchemaContext } from '@valibot/to-json-schema';
import type * as v from 'valibot';
import { HOLDABLE_STRING_PATTERN } from '../http/body.js';
import { discriminatedInfo } from '../schemas/index.js';
import { documentedAs } from '../schemas/documented.js';
import { strictShape } from '../schemas/primitives.js';
import type { NamedSchema } from './components.js';

export type Mode = 'input' | 'output';

const COMPONENTS = '#/components/schemas/';

/**
 * Rules checked by code, not expressible (or not worth expressing) as JSON Schema:
 * cross-field checks, `-0`, calendar validity, finiteness (JSON has no Infinity anyway).
 * `raw_transform` only appears in `ownRecord`, whose shape `overrideSchema` writes (`documentedAs`).
 */
const IGNORED_ACTIONS = ['check', 'partial_check', 'raw_check', 'finite', 'raw_transform'];

export interface ComponentSchemas {
  /** Ready for `components.schemas`. */
  schemas: Record<string, JsonSchema>;
  /** `{$ref}` to a component as used in `mode`. */
  ref(name: string, mode: Mode): { $ref: string };
}

export function convertComponents(named: readonly NamedSchema[]): ComponentSchemas {
  const converted = { input: convertMode(named, 'input'), output: convertMode(named, 'output') };
  // Response-only shapes whose optional fields really are optional (the event envelope).
  for (const entry of named) if (entry.asDeclared === true) converted.output[entry.name] = converted.input[entry.name]!;
  const split = namesThatDiffer(
    named.map((entry) => entry.name),
    converted.input,
    converted.output,
  );
  const finalName = (name: string, mode: Mode): string => (split.has(name) ? `${name}-${mode === 'input' ? 'Input' : 'Output'}` : name);

  const schemas: Record<string, JsonSchema> = {};
  for (const { name } of named) {
    for (const mode of split.has(name) ? (['input', 'output'] as const) : (['input'] as const)) {
      schemas[finalName(name, mode)] = renameRefs(converted[mode][name]!, (target) => finalName(target, mode));
    }
  }
  return { schemas, ref: (name, mode) => ({ $ref: `${COMPONENTS}${finalName(name, mode)}` }) };
}

/** Every named schema of one mode, refs written `#/components/schemas/<name>` for now. */
function convertMode(named: readonly NamedSchema[], mode: Mode): Record<string, JsonSchema> {
  const definitions: Record<string, v.GenericSchema> = {};
  const nameOf = new Map<unknown, string>();
  for (const entry of named) {
    const schema = mode === 'output' ? (entry.output ?? entry.input) : entry.input;
    definitions[entry.name] = schema;
    nameOf.set(schema, entry.name);
  }
  const config: ConversionConfig = {
    target: 'draft-2020-12',
    typeMode: mode,
    errorMode: 'throw', // a schema the generator cannot describe fails the build (and the tests)
    ignoreActions: IGNORED_ACTIONS,
    overrideRef: ({ referenceId }) => `${COMPONENTS}${referenceId}`,
    overrideSchema: (context) => overrideSchema(context, mode, nameOf, config),
  };
  const all = toJsonSchemaDefs(definitions, config);
  // Converting a `v.lazy` also stores whatever its getter returns for `undefined` under a
  // numbered id; those are replaced by `oneOf` below and never referenced. Keep the named.
  return Object.fromEntries(named.map((entry) => [entry.name, all[entry.name]!]));
}

function overrideSchema(context: OverrideSchemaContext, mode: Mode, nameOf: Map<unknown, string>, config: ConversionConfig): JsonSchema | undefined {
  const union = discriminatedInfo(context.valibotSchema);
  if (union !== undefined) {
    const branches = Object.values(union.branches);
    const schemas = branches.map((branch) => branchSchema(branch, nameOf, config));
    // A request may leave the tag out (the resource's own template, a bar's default style):
    // then branches can overlap, so `anyOf`. Echoes always carry the tag: `oneOf`.
    const tagOptional = mode === 'input' && union.tag !== undefined && branches.some((branch) => isOptionalEntry(branch, union.tag!));
    if (!tagOptional) return { oneOf: schemas };
    // Without the tag, the request is read as the resource's own branch: a body valid for
    // another branch alone (`{}` for a template without required fields) is refused.
    return union.absentTag === 'resource' ? { anyOf: schemas, description: resourceBranchNote(union.tag!) } : { anyOf: schemas };
  }
  // `nullable(unknown())`: any JSON value, null included, is `{}` (not `anyOf: [{}, null]`).
  const { anyOf } = context.jsonSchema;
  if (Array.isArray(anyOf) && anyOf.some((member) => typeof member === 'object' && Object.keys(member).length === 0)) {
    const { anyOf: _anyOf, ...rest } = context.jsonSchema;
    return mode === 'input' ? withoutDefault(rest) : rest;
  }
  // A `strict` object is a `v.lazy`, which the conversion turns into a reference to what its
  // getter gives for `undefined`: the object's `v.strictObject`, converted just before. Inline it.
  const shape = strictShape(context.valibotSchema);
  if (shape !== undefined) {
    const id = context.referenceMap.get(shape);
    return id === undefined ? undefined : context.definitions[id];
  }
  // `ownRecord` and `list` are checked by pieces JSON Schema cannot say; described as what they are.
  const documented = documentedAs(context.valibotSchema);
  if (documented !== undefined) {
    const { $schema: _schema, $defs: _defs, ...shape } = toJsonSchema(documented.shape, config);
    return { ...shape, [documented.part]: branchSchema(documented.value, nameOf, config) };
  }
  if (mode === 'output') return outputShape(context);
  return context.jsonSchema.default === undefined ? undefined : withoutDefault(context.jsonSchema);
}

function resourceBranchNote(tag: string): string {
  return (
    `\`${tag}\` may be left out: the content is then read as the resource's own \`${tag}\` (fixed when the resource was created) ` +
    'and must be valid for that branch.'
  );
}

/**
 * A request string must hold no NUL and no unpaired surrogate (the body reader refuses it,
 * `http/body.ts`): said as a `pattern` of every string schema a request may carry, keys
 * (`propertyNames`) included; of the strings inside an "any JSON" value, in words. A string that has a pattern of its own gets this one beside it
 * (`allOf`); an enumeration or a timestamp cannot hold such a character. Done on the
 * converted schemas, not in `overrideSchema`: the conversion calls that for a pipe's
 * `v.string()` before the pipe's own `v.regex`, which may not meet a second pattern.
 */
export function addRequestStringRules(schema: JsonSchema): void {
  forEachSubschema(schema, (node) => {
    // Any JSON value (a webhook body template): its strings are read like every other. Said
    // in words: the schema that says it (a recursive one) is one openapi-typescript cannot type.
    if (isAnyValue(node)) node.description = [node.description, ANY_VALUE_STRINGS].filter(Boolean).join(' ');
    if (node.type !== 'string' || node.enum !== undefined || node.const !== undefined || node.format === 'date-time') return;
    if (node.pattern === undefined) node.pattern = HOLDABLE_STRING_PATTERN;
    else node.allOf = [...((node.allOf as JsonSchema[] | undefined) ?? []), { pattern: HOLDABLE_STRING_PATTERN }];
  });
}

/** A schema that any JSON value fits: no keyword but annotations. */
function isAnyValue(node: JsonSchema): boolean {
  return Object.keys(node).every((keyword) => keyword === 'description' || keyword === 'title');
}

/** Keywords whose value is a schema, and those whose value is a list or a map of schemas. */
const SCHEMA_KEYWORDS = ['items', 'additionalProperties', 'propertyNames', 'not'] as const;
const SCHEMA_LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'] as const;
const SCHEMA_MAP_KEYWORDS = ['properties', '$defs'] as const;

/** Calls `visit` on `schema` and on every schema inside it (not on `const`, `default` or `examples` values). */
function forEachSubschema(schema: unknown, visit: (node: JsonSchema) => void): void {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return;
  const node = schema as JsonSchema;
  visit(node);
  for (const keyword of SCHEMA_KEYWORDS) forEachSubschema(node[keyword], visit);
  for (const keyword of SCHEMA_LIST_KEYWORDS) for (const item of (node[keyword] as unknown[] | undefined) ?? []) forEachSubschema(item, visit);
  for (const keyword of SCHEMA_MAP_KEYWORDS)
    for (const item of Object.values((node[keyword] as Record<string, unknown> | undefined) ?? {})) forEachSubschema(item, visit);
}

/** What a request's "any JSON value" says of its strings. */
const ANY_VALUE_STRINGS = 'Its strings and keys hold no NUL and no unpaired surrogate.';

/**
 * Request schemas say a default in words, not as `default`: code generators such as
 * openapi-typescript make a property with a `default` required (they read schemas as
 * responses, where the default is always filled in), so `{content:{template:'gauge',value:21}}`
 * would not type-check. Responses keep `default` (every field is required there anyway).
 */
function withoutDefault(schema: JsonSchema): JsonSchema {
  const { default: fallback, ...rest } = schema;
  // A `null` default says nothing that "optional" and the `null` type do not.
  if (fallback === undefined || fallback === null) return fallback === null ? rest : schema;
  const note = `Default: \`${JSON.stringify(fallback)}\`.`;
  return { ...rest, description: typeof rest.description === 'string' ? `${rest.description} ${note}` : note };
}

/** Whether `key` may be left out of the object (possibly piped) `branch`. */
function isOptionalEntry(branch: v.GenericSchema, key: string): boolean {
  const piped = 'pipe' in branch ? (branch.pipe as v.GenericSchema[])[0]! : branch;
  const base = strictShape(piped) ?? piped;
  const entry = (base as { entries?: Record<string, v.GenericSchema> }).entries?.[key];
  return entry === undefined || ['optional', 'nullish', 'exact_optional'].includes(entry.type);
}

/** A named branch is a `$ref`; an unnamed one (like the icon's plain string) is inlined. */
function branchSchema(branch: v.GenericSchema, nameOf: Map<unknown, string>, config: ConversionConfig): JsonSchema {
  const name = nameOf.get(branch);
  if (name !== undefined) return { $ref: `${COMPONENTS}${name}` };
  const { $schema: _schema, $defs: _defs, ...inline } = toJsonSchema(branch, config);
  return inline;
}

function outputShape({ valibotSchema, jsonSchema }: OverrideSchemaContext): JsonSchema | undefined {
  if (jsonSchema.type === 'object' && jsonSchema.properties !== undefined) {
    return { ...jsonSchema, required: Object.keys(jsonSchema.properties) };
  }
  // `v.nullish(X, default)` with a non-null default: null in, never null out.
  const fallback = (valibotSchema as { default?: unknown }).default;
  if (valibotSchema.type === 'nullish' && fallback !== null && fallback !== undefined && Array.isArray(jsonSchema.anyOf)) {
    const [wrapped] = jsonSchema.anyOf;
    return { ...(wrapped as JsonSchema), default: jsonSchema.default };
  }
  return undefined;
}

/** A parameter's schema (a query value, read by code that validates it with `schema`). */
export function parameterSchema(schema: v.GenericSchema): JsonSchema {
  const { $schema: _schema, ...rest } = toJsonSchema(schema, { target: 'draft-2020-12', errorMode: 'throw' });
  return rest;
}

/** Names whose input and output shapes differ, directly or through a component they use. */
function namesThatDiffer(names: string[], input: Record<string, JsonSchema>, output: Record<string, JsonSchema>): Set<string> {
  const differ = new Set(names.filter((name) => JSON.stringify(input[name]) !== JSON.stringify(output[name])));
  let grew = true;
  while (grew) {
    grew = false;
    for (const name of names) {
      if (differ.has(name)) continue;
      const uses = [...refsIn(input[name]), ...refsIn(output[name])];
      if (uses.some((target) => differ.has(target))) {
        differ.add(name);
        grew = true;
      }
    }
  }
  return differ;
}

/** Component names referenced anywhere inside `schema`. */
export function refsIn(schema: unknown): string[] {
  const found: string[] = [];
  walk(schema, (node) => {
    if (typeof node.$ref === 'string' && node.$ref.startsWith(COMPONENTS)) found.push(node.$ref.slice(COMPONENTS.length));
  });
  return found;
}

/** A copy of `schema` whose component `$ref`s point under `prefix` (e.g. `#/$defs/`): a standalone schema. */
export function moveRefs(schema: JsonSchema, prefix: string): JsonSchema {
  return renameRefs(schema, (name) => name, prefix);
}

function renameRefs(schema: JsonSchema, rename: (name: string) => string, prefix = COMPONENTS): JsonSchema {
  const copy = structuredClone(schema);
  walk(copy, (node) => {
    if (typeof node.$ref === 'string' && node.$ref.startsWith(COMPONENTS)) node.$ref = `${prefix}${rename(node.$ref.slice(COMPONENTS.length))}`;
  });
  return copy;
}

function walk(value: unknown, visit: (node: Record<string, unknown>) => void): void {
  if (Array.isArray(value)) {
    for (const item of value) walk(item, visit);
  } else if (typeof value === 'object' && value !== null) {
    visit(value as Record<string, unknown>);
    for (const child of Object.values(value)) walk(child, visit);
  }
}
