/**
 * A record (object with keys of one schema and values of another) that keeps EVERY own
 * key: `v.record` silently drops `__proto__`, `constructor` and `prototype`, which are
 * valid action ids and header names (docs/contract/events-and-webhooks.md#webhook-prototype-names: never silently dropped).
 *
 * Built from valibot's public API only: a plain-object check, then a raw transformation
 * that checks each key and value with `v.safeParse` and forwards their issues (see
 * `issue-origins.ts`). The output is a fresh object whose properties are all own data
 * properties (`setOwn`), so no key reaches a prototype.
 */
import * as v from 'valibot';
import { MAX_FIELD_ERRORS } from './field-errors.js';
import { documentAs } from './documented.js';
import { noteOrigin } from './issue-origins.js';
import { MSG } from './messages.js';
import { isPlainObject, setOwn } from './primitives.js';

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
      let forwarded = 0;
      const forward = (issues: readonly v.BaseIssue<unknown>[], name: string, origin: 'key' | 'value'): void => {
        failed = true;
        forwarded += issues.length;
        const item = { type: 'object', origin, input, key: name, value: input[name] } as v.ObjectPathItem;
        for (const issue of issues) {
          const message = (created: object): string => {
            noteOrigin(created, issue);
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
        // No more can be shown (`toFieldErrors`): a record of thousands of bad entries costs a few.
        if (failed && (config.abortEarly || forwarded >= MAX_FIELD_ERRORS)) return NEVER;
        if (checkedKey.success && checkedValue.success) setOwn(output, checkedKey.output, checkedValue.output);
      }
      return failed ? NEVER : output;
    }),
    ...(actions as []),
  );
  // to-json-schema converts a pipe item by item and stops at the transformation: the object
  // check, converted first, stands for the whole record.
  documentAs(objectCheck, { shape: v.pipe(v.record(key, v.unknown()), ...(actions as [])), part: 'additionalProperties', value });
  return schema;
}
