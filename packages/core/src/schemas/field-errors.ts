/**
 * valibot issues → FastAPI/pydantic v2 field errors `{loc, msg, type}`.
 *
 * An item never carries the input, `ctx`, `input` or the valibot message (which quotes
 * the input): msg is either a fixed text registered in `messages.ts` or built here from
 * the schema's requirement alone.
 */
import type * as v from 'valibot';
import type { FieldError } from '../errors.js';
import { quoteList, registeredType } from './messages.js';
import { forwardedIssue } from './issue-origins.js';

type Loc = FieldError['loc'];
type Described = Pick<FieldError, 'msg' | 'type'>;

const OBJECT_TYPES = new Set(['object', 'strict_object', 'loose_object', 'object_with_rest', 'record']);

/**
 * At most this many field errors in a `422` (docs/contract/limits-and-errors.md#field-error-cap): a body with
 * thousands of faults gets the first ones, never an answer many times its own size.
 */
export const MAX_FIELD_ERRORS = 64;

/** Maps issues to field errors, keeping the first error of each `loc` (one per field), at most `MAX_FIELD_ERRORS`. */
export function toFieldErrors(issues: readonly v.BaseIssue<unknown>[], locPrefix: Loc = []): FieldError[] {
  const seen = new Set<string>();
  const errors: FieldError[] = [];
  for (const issue of issues) {
    if (errors.length === MAX_FIELD_ERRORS) break;
    const loc = [...locPrefix, ...pathOf(issue)];
    const key = JSON.stringify(loc);
    if (seen.has(key)) continue;
    seen.add(key);
    errors.push({ loc, ...describe(forwardedIssue(issue)) });
  }
  return errors;
}

/** Plain JSON path: object keys and array indices only. */
function pathOf(issue: v.BaseIssue<unknown>): Loc {
  const loc: Loc = [];
  for (const item of issue.path ?? []) {
    if (typeof item.key === 'string' || typeof item.key === 'number') loc.push(item.key);
  }
  return loc;
}

function describe(issue: v.BaseIssue<unknown>): Described {
  const registered = registeredType(issue.message);
  if (registered !== undefined) return { type: registered, msg: issue.message };
  if (OBJECT_TYPES.has(issue.type)) return describeObjectIssue(issue);
  return describeByType(issue) ?? { type: 'value_error', msg: 'Value error, invalid value' };
}

function describeObjectIssue(issue: v.BaseIssue<unknown>): Described {
  const last = issue.path?.[issue.path.length - 1];
  if (issue.expected === 'never') return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
  if (last?.origin === 'key' && issue.received === 'undefined') return { type: 'missing', msg: 'Field required' };
  return { type: 'dict_type', msg: 'Input should be a valid dictionary' };
}

function describeByType(issue: v.BaseIssue<unknown>): Described | undefined {
  const requirement = issue.requirement;
  switch (issue.type) {
    case 'string':
      return { type: 'string_type', msg: 'Input should be a valid string' };
    case 'number':
      return { type: 'float_type', msg: 'Input should be a valid number' };
    case 'boolean':
      return { type: 'bool_type', msg: 'Input should be a valid boolean' };
    case 'array':
      return { type: 'list_type', msg: 'Input should be a valid list' };
    case 'null':
      return { type: 'none_required', msg: 'Input should be None' };
    case 'integer':
    case 'safe_integer':
      return { type: 'int_type', msg: 'Input should be a valid integer' };
    case 'finite':
      return { type: 'finite_number', msg: 'Input should be a finite number' };
    case 'picklist':
      return { type: 'enum', msg: `Input should be ${quoteList(expectedValues(issue))}` };
    case 'literal':
      return { type: 'literal_error', msg: `Input should be ${quoteList(expectedValues(issue))}` };
    case 'max_length':
      return lengthError(issue, 'at most', Number(requirement));
    case 'min_length':
      return lengthError(issue, 'at least', Number(requirement));
    case 'max_value':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${String(requirement)}` };
    case 'min_value':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${String(requirement)}` };
    case 'gt_value':
      return { type: 'greater_than', msg: `Input should be greater than ${String(requirement)}` };
    case 'lt_value':
      return { type: 'less_than', msg: `Input should be less than ${String(requirement)}` };
    case 'regex':
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${(requirement as RegExp).source}'` };
    case 'url':
      return { type: 'url_parsing', msg: 'Input should be a valid URL' };
    case 'check':
    case 'partial_check':
    case 'raw_check':
      return { type: 'value_error', msg: 'Value error, invalid value' };
    default:
      return undefined;
  }
}

/**
 * The allowed values of a picklist or literal, read back from valibot's `expected`
 * (`"a" | "b"`, each JSON-encoded): the schema's options, never the input.
 */
function expectedValues(issue: v.BaseIssue<unknown>): unknown[] {
  const expected = (issue.expected ?? '').replace(/^\((.*)\)$/, '$1'); // valibot wraps several in ( )
  return expected.split(' | ').map((part) => {
    try {
      return JSON.parse(part) as unknown;
    } catch {
      return part;
    }
  });
}

/** Lists and strings word their length errors differently in pydantic. */
function lengthError(issue: v.BaseIssue<unknown>, bound: 'at most' | 'at least', count: number): Described {
  const tooLong = bound === 'at most';
  if (Array.isArray(issue.input)) {
    return { type: tooLong ? 'too_long' : 'too_short', msg: `List should have ${bound} ${count} item${count === 1 ? '' : 's'} after validation` };
  }
  return { type: tooLong ? 'string_too_long' : 'string_too_short', msg: `String should have ${bound} ${count} character${count === 1 ? '' : 's'}` };
}
