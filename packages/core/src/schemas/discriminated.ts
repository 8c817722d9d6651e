/**
 * Unions that pick ONE branch before validating, so field errors carry plain JSON paths
 * (`["body","content","progress","value"]`) and one error per field, never a pile of
 * errors from every branch or a union tag inside `loc`.
 *
 * The picking is a `v.lazy`, which @valibot/to-json-schema cannot turn into `oneOf` (it
 * calls the getter with `undefined` and converts whatever comes back). So every such union
 * is recorded here with its branches; the OpenAPI generator asks `discriminatedInfo()` and
 * emits `oneOf` over the branches instead.
 */
import * as v from 'valibot';
import { literalMessage } from './messages.js';
import { isPlainObject } from './primitives.js';

export interface DiscriminatedInfo {
  /** The tag key, or `undefined` when the branches are told apart by the value's shape. */
  readonly tag: string | undefined;
  /** The real alternatives (not the error-reporting fallbacks `pick` may return). */
  readonly branches: Readonly<Record<string, v.GenericSchema>>;
  /**
   * What an object without the tag is read as, where a branch lets the tag out: `branch`,
   * one the union picks by itself (`byDefault`); `resource`, the branch of the resource the
   * request is about (its template, fixed at creation), which the handler fills in.
   */
  readonly absentTag?: 'branch' | 'resource';
}

const registry = new WeakMap<object, DiscriminatedInfo>();

/**
 * A union that validates with the one schema `pick(input)` returns. `pick` may return a
 * schema outside `branches` whose only purpose is to report why no branch applies.
 */
export function discriminated<const TBranches extends Record<string, v.GenericSchema>>(
  tag: string | undefined,
  branches: TBranches,
  pick: (input: unknown) => v.GenericSchema,
  absentTag?: 'branch' | 'resource',
): v.LazySchema<TBranches[keyof TBranches]> {
  const schema = v.lazy((input) => pick(input) as TBranches[keyof TBranches]);
  registry.set(schema, absentTag === undefined ? { tag, branches } : { tag, branches, absentTag });
  return schema;
}

/** The branches of a schema made by `discriminated`, or `undefined` for any other schema. */
export function discriminatedInfo(schema: unknown): DiscriminatedInfo | undefined {
  return typeof schema === 'object' && schema !== null ? registry.get(schema) : undefined;
}

export interface TaggedOptions<TName extends string> {
  /** Branch for an object without the tag. Omitted: the tag is required. */
  byDefault?: (input: Record<string, unknown>) => TName;
  /** Whether a `null` tag counts as absent (widget rule: "an explicit null means absent"). */
  nullIsAbsent?: boolean;
}

/**
 * A union of objects told apart by the string at `tag` (branch names are the tag values).
 * - not an object: the first branch reports `dict_type`;
 * - tag absent: `byDefault` picks, or the tag is reported `missing`;
 * - tag not a branch name: one `literal_error` at the tag.
 */
export function tagged<const TBranches extends Record<string, v.GenericSchema>>(
  tag: string,
  branches: TBranches,
  options: TaggedOptions<keyof TBranches & string> = {},
): v.LazySchema<TBranches[keyof TBranches]> {
  const names = Object.keys(branches);
  const first = branches[names[0]!]!;
  const wrongTag = v.looseObject({ [tag]: v.picklist(names, literalMessage(names)) });
  return discriminated(
    tag,
    branches,
    (input) => {
      // Also what the OpenAPI conversion gets for `undefined`: a named branch, so no stray definition.
      if (!isPlainObject(input)) return first;
      const value = Object.hasOwn(input, tag) ? input[tag] : undefined;
      const absent = value === undefined || (value === null && options.nullIsAbsent === true);
      if (absent && options.byDefault !== undefined) return branches[options.byDefault(input)]!;
      if (typeof value === 'string' && Object.hasOwn(branches, value)) return branches[value]!;
      return wrongTag;
    },
    options.byDefault === undefined ? 'resource' : 'branch',
  );
}
