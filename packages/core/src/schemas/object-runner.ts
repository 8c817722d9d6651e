import * as v from 'valibot';

type Dataset = v.OutputDataset<unknown, v.BaseIssue<unknown>>;
type Config = v.Config<v.BaseIssue<unknown>>;
/** A schema's `~run`, called with the schema as `this`. */
export type Run = (this: unknown, dataset: v.UnknownDataset, config: Config) => Dataset;
interface EntrySchema {
  type: string;
  default?: unknown;
  fallback?: unknown;
  '~run'(dataset: v.UnknownDataset, config: Config): Dataset;
}
type Issues = v.BaseIssue<unknown>[];
/** A dataset as the runner changes it in place (valibot's own runners do the same). */
interface Working {
  typed: boolean;
  value: unknown;
  issues?: Issues;
}

const optionalTypes = new Set(['exact_optional', 'optional', 'nullish']);

/**
 * The `~run` of valibot's `strictObject` (1.5), step for step, with what depends on the
 * entries read once, when the schema is made: the keys, each entry's `~run` (bound), and
 * whether it is optional or has a default or a fallback.
 *
 * Why, as for `pipe`: valibot's method is one function literal for every strict object in
 * the process, so its loads of `this.entries[key]`, `.type`, `.default` and `['~run']`
 * see every object schema there is and go megamorphic in a server that checks more than
 * one kind of body (a probe of V8's global stub cache each). Here those are array reads.
 * What still varies with the input (`key in input`, `input[key]`, the output's stores)
 * varies in valibot's too.
 */
export function strictObjectRunner(schema: { entries: Record<string, EntrySchema> }): Run {
  const { entries } = schema;
  const keys = Object.keys(entries); // for…in's order: the entries are a plain literal
  const items = keys.map((key) => entries[key]!);
  const runs = items.map((item) => item['~run'].bind(item));
  const optional = items.map((item) => optionalTypes.has(item.type));
  const hasDefault = items.map((item, i) => optional[i]! && item.default !== undefined);
  const hasFallback = items.map((item) => item.fallback !== undefined);

  return function run(this: unknown, dataset, config) {
    const input = dataset.value as Record<string, unknown>;
    const out = dataset as unknown as Working;
    if (!(input && typeof input === 'object')) {
      v._addIssue(this as never, 'type', out as never, config);
      return out as Dataset;
    }
    out.typed = true;
    const output: Record<string, unknown> = {};
    out.value = output;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const present = key in input;
      if (present || hasDefault[i]) {
        const value = present ? input[key] : v.getDefault(items[i] as never);
        const valueDataset = runs[i]!({ value }, config);
        if (valueDataset.issues) {
          const pathItem = { type: 'object', origin: 'value', input, key, value } as v.ObjectPathItem;
          for (const issue of valueDataset.issues as Issues) {
            const pathed = issue as { path?: v.IssuePathItem[] };
            if (pathed.path) pathed.path.unshift(pathItem);
            else pathed.path = [pathItem];
            out.issues?.push(issue);
          }
          if (!out.issues) out.issues = valueDataset.issues as Issues;
          if (config.abortEarly) {
            out.typed = false;
            break;
          }
        }
        if (!valueDataset.typed) out.typed = false;
        output[key] = valueDataset.value;
      } else if (hasFallback[i]) {
        output[key] = v.getFallback(items[i] as never);
      } else if (!optional[i]) {
        v._addIssue(this as never, 'key', out as never, config, {
          input: undefined,
          expected: `"${key}"`,
          path: [{ type: 'object', origin: 'key', input, key, value: input[key] } as v.ObjectPathItem],
        });
        if (config.abortEarly) break;
      }
    }
    if (!out.issues || !config.abortEarly) {
      for (const key in input) {
        if (!Object.hasOwn(entries, key)) {
          v._addIssue(this as never, 'key', out as never, config, {
            input: key,
            expected: 'never',
            path: [{ type: 'object', origin: 'key', input, key, value: input[key] } as v.ObjectPathItem],
          });
          break;
        }
      }
    }
    return out as Dataset;
  };
}
