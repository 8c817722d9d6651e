/**
 * A record (object with keys of one schema and values of another) that keeps EVERY own
 * key: `v.record` silently drops `__proto__`, `constructor` and `prototype`, which are
 * valid action ids and header names (reference-deployment §9: never silently dropped).
 *
 * Built from valibot's public API only: a plain-object check, then a raw transformation
 * that checks each key and value with `v.safeParse` and forwards their issues (see
 * `forwardedIssue`). The output is a fresh object whose properties are all own data
 * properties (`setOwn`), so no key reaches a prototype.
 */
import * as v from 'valibot';
import { MSG } from './messages.js';
import { isPlainObject, setOwn } from './primitives.js';

export interface RecordInfo {
  /** `v.record(key, v.unknown())` piped through the record's actions: what JSON Schema can say of it but the values. */
  readonly shape: v.GenericSchema;
  readonly value: v.GenericSchema;
}

const registry = new WeakMap<object, RecordInfo>();

/** The key and value schemas of a schema made by `ownRecord` (for the OpenAPI generator), else `undefined`. */
export function recordInfo(schema: unknown): RecordInfo | undefined {
  return typeof schema === 'object' && schema !== null ? registry.get(schema) : undefined;
}

/**
 * Issues of a nested `v.safeParse`, re-added to the record's dataset at the record's path:
 * each new issue → the original, so `toFieldErrors` describes the original (its type,
 * requirement, input) at the new issue's full path. Filled by the message function, which
 * valibot calls with the issue it creates.
 */
const origins = new WeakMap<object, v.BaseIssue<unknown>>();

/** The issue a record forwarded (followed through nested records), or `issue` itself. */
export function forwardedIssue(issue: v.BaseIssue<unknown>): v.BaseIssue<unknown> {
  let inner = issue;
  for (let next = origins.get(inner); next !== undefined; next = origins.get(inner)) inner = next;
  return inner;
}

type Out<TValue extends v.GenericSchema> = Record<string, v.InferOutput<TValue>>;

/**
 * A record of `key` → `value`; `actions` (checks, metadata) run on the output, once every
 * key and value passed.
 */
export function ownRecord<const TKey extends v.GenericSchema<string, string>, const TValue extends v.GenericSchema>(
  key: TKey,
  value: TValue,
  ...actions: v.PipeAction<Out<TValue>, Out<TValue>, v.BaseIssue<unknown>>[]
) {
  type In = Record<v.InferInput<TKey>, v.InferInput<TValue>>;
  const objectCheck = v.custom<In>(isPlainObject, MSG.dict);
  const schema = v.pipe(
    objectCheck,
    v.rawTransform<In, Out<TValue>>(({ dataset, config: issueConfig, addIssue, NEVER }) => {
      const input = dataset.value as Record<string, unknown>;
      const config = issueConfig as v.Config<v.BaseIssue<unknown>>;
      const output: Out<TValue> = {};
      let failed = false;
      const forward = (issues: readonly v.BaseIssue<unknown>[], name: string, origin: 'key' | 'value'): void => {
        failed = true;
        const item = { type: 'object', origin, input, key: name, value: input[name] } as v.ObjectPathItem;
        for (const issue of issues) {
          const message = (created: object): string => {
            origins.set(created, issue);
            return issue.message;
          };
          addIssue({ message, input: issue.input, expected: issue.expected ?? undefined, received: issue.received, path: [item, ...(issue.path ?? [])] });
        }
      };
      for (const name of Object.keys(input)) {
        const checkedKey = v.safeParse(key, name, config);
        if (!checkedKey.success) forward(checkedKey.issues, name, 'key');
        const checkedValue = v.safeParse(value, input[name], config);
        if (!checkedValue.success) forward(checkedValue.issues, name, 'value');
        if (failed && config.abortEarly) return NEVER;
        if (checkedKey.success && checkedValue.success) setOwn(output, checkedKey.output, checkedValue.output);
      }
      return failed ? NEVER : output;
    }),
    ...(actions as []),
  );
  const info: RecordInfo = { shape: v.pipe(v.record(key, v.unknown()), ...(actions as [])), value };
  registry.set(schema, info);
  registry.set(objectCheck, info); // converted on the way to the pipe: described the same
  return schema;
}
