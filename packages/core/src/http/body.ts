import { fail, jsonDecodeError, type FieldError } from '../errors.js';
import { isHoldable } from '../storage/holdable.js';
import { singleHeader } from './headers.js';
import type { CoreRequest, HeaderValue } from './types.js';

/**
 * What the body reader accepts of a string (a value or a key; see `checkStrings`), as a
 * regular expression for the OpenAPI document: no NUL, no unpaired surrogate. The same
 * answer with and without the `u` flag, so in both ECMA-262 readings of a JSON Schema
 * `pattern`: without it, a surrogate pair is matched by the second branch; with it, a pair is
 * one code point (matched by the first) and an unpaired surrogate a code point no branch matches.
 */
export const HOLDABLE_STRING_PATTERN = '^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$';

/** Request bodies over this many bytes are refused with `413` before parsing (docs/contract/limits-and-errors.md#body-size-limit). */
export const BODY_LIMIT_BYTES = 64 * 1024;

// `fatal` so that invalid UTF-8 is refused instead of silently becoming U+FFFD;
// `ignoreBOM` keeps a BOM in the text, where JSON.parse refuses it.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Reads and parses a JSON request body under the service's rules: media type
 * (`415`), size (`413`), strict UTF-8 and JSON (`422 json_invalid`), and strings
 * that every storage can keep (no NUL, no unpaired surrogate). Works on raw bytes
 * and on a body the host framework already parsed.
 */
export function readJsonBody(request: CoreRequest): Promise<unknown> {
  return readJsonBodySized(request).then(valueOfRead);
}

const valueOfRead = (read: { value: unknown }): unknown => read.value;

/**
 * `readJsonBody`, plus the body's size in bytes when known, and `serializedBound`: the most
 * bytes any part of the parsed value can take when serialised again (compact JSON).
 * Serialising parsed JSON only grows numbers: one written with an exponent by up to 21/4
 * (`1e20`, 4 characters, becomes 21 digits), any other by up to 17/16 (sixteen nines round
 * up to 1 and sixteen zeros); strings and everything else only shrink or stay.
 */
export async function readJsonBodySized(request: CoreRequest): Promise<SizedJsonBody> {
  if (!isJsonMediaType(request.headers['content-type'])) fail({ kind: 'unsupported_media_type' });
  if (!isIdentityEncoding(request.headers['content-encoding'])) fail({ kind: 'unsupported_media_type' });
  const { body } = request;
  if (body.kind === 'refused') fail(body.error);
  if (body.kind === 'parsed') {
    const size = body.byteLength ?? declaredLength(request.headers['content-length']) ?? serializedLength(body.value);
    if (size > BODY_LIMIT_BYTES) fail({ kind: 'payload_too_large' });
    // A host parser may turn an empty body into `{}`; an empty body is never JSON.
    if (size === 0 || body.value === undefined) fail(jsonDecodeError());
    checkStrings(body.value);
    return { value: body.value, byteLength: size, serializedBound: (size * MAX_NUMBER_GROWTH_NUMERATOR) / MAX_NUMBER_GROWTH_DENOMINATOR };
  }
  if ((declaredLength(request.headers['content-length']) ?? 0) > BODY_LIMIT_BYTES) fail({ kind: 'payload_too_large' });
  const bytes = await body.read(BODY_LIMIT_BYTES);
  if (bytes === 'too_large') fail({ kind: 'payload_too_large' });
  if (bytes === 'aborted') fail({ kind: 'request_aborted' });
  const { text, value } = parseJson(bytes);
  // Unpaired surrogates and NUL can only come from `\u` escapes: skip the walk when there are none.
  if (bytes.includes(0x5c)) checkStrings(value);
  return new ReadJsonText(value, bytes.byteLength, text);
}

/** What `readJsonBodySized` answers. */
export interface SizedJsonBody {
  value: unknown;
  /** The body's size in bytes, when known. */
  byteLength: number | undefined;
  /** The most bytes any part of `value` serialises to (compact JSON), when known. */
  readonly serializedBound: number | undefined;
}

/**
 * A body read from its text. Its `serializedBound` is worked out on first use only: it
 * scans the whole text for exponents, and only a widget's size check ever asks for it.
 */
class ReadJsonText implements SizedJsonBody {
  #bound: number | undefined;
  constructor(
    readonly value: unknown,
    readonly byteLength: number,
    private readonly text: string,
  ) {}

  get serializedBound(): number {
    return (this.#bound ??= EXPONENT.test(this.text)
      ? (this.byteLength * MAX_NUMBER_GROWTH_NUMERATOR) / MAX_NUMBER_GROWTH_DENOMINATOR
      : (this.byteLength * MAX_PLAIN_NUMBER_GROWTH_NUMERATOR) / MAX_PLAIN_NUMBER_GROWTH_DENOMINATOR);
  }
}

/** The most a JSON number grows when serialised again: `1e20` (4 characters) → 21 digits. */
const MAX_NUMBER_GROWTH_NUMERATOR = 21;
const MAX_NUMBER_GROWTH_DENOMINATOR = 4;
/** The most a number without an exponent grows: `9999999999999999` → `10000000000000000`. */
const MAX_PLAIN_NUMBER_GROWTH_NUMERATOR = 17;
const MAX_PLAIN_NUMBER_GROWTH_DENOMINATOR = 16;

/**
 * A number written with an exponent: a digit, `e` or `E`, then a sign or a digit (a string
 * like `"v1e5"` matches too, which only makes the caller measure). Three characters rather
 * than the two that suffice: the regex engine then skips ahead further between tries.
 */
const EXPONENT = /[0-9][eE][-+0-9]/;

/** For a pre-parsed body of unknown size (chunked), its compact JSON size stands in for it. */
function serializedLength(value: unknown): number {
  try {
    return value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value) ?? '', 'utf8');
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

function parseJson(bytes: Uint8Array): { text: string; value: unknown } {
  try {
    const text = decodeUtf8(bytes);
    return { text, value: JSON.parse(text) };
  } catch {
    // Never a 500, and never an echo of the input: the parser's message quotes it.
    return fail(jsonDecodeError());
  }
}

/**
 * Strict UTF-8 decoding. Node's lenient decoder is much faster; it turns invalid bytes
 * into U+FFFD, so only a text containing U+FFFD (rare) is decoded again strictly.
 */
function decodeUtf8(bytes: Uint8Array): string {
  // Node adapters hand over a Buffer already: no second view of the same bytes.
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // No argument: UTF-8, by Buffer's shortest path (an encoding argument is looked up first).
  const text = buffer.toString();
  return text.includes('\uFFFD') ? utf8.decode(bytes) : text;
}

function declaredLength(value: HeaderValue): number | undefined {
  const text = singleHeader(value);
  if (text === undefined || !/^\d+$/.test(text)) return undefined;
  return Number(text);
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * A missing Content-Type, `application/json` or any `type/subtype+json`, in any case,
 * with parameters, is JSON; a charset other than UTF-8 is not (docs/contract/limits-and-errors.md#body-content-type, docs/contract/limits-and-errors.md#body-charset-utf8).
 */
export function isJsonMediaType(header: HeaderValue): boolean {
  const value = singleHeader(header);
  // The value nearly every client sends, answered without parsing it.
  if (value === undefined || value === 'application/json') return true;
  const [essence = '', ...parameters] = value.toLowerCase().split(';');
  const [type, subtype, extra] = essence.trim().split('/');
  if (extra !== undefined || type === undefined || subtype === undefined) return false;
  if (!TOKEN.test(type) || !TOKEN.test(subtype)) return false;
  if (!((type === 'application' && subtype === 'json') || subtype.endsWith('+json'))) return false;
  return parameters.every(isAcceptableParameter);
}

function isAcceptableParameter(parameter: string): boolean {
  const separator = parameter.indexOf('=');
  if (separator === -1) return parameter.trim() === '';
  const name = parameter.slice(0, separator).trim();
  if (name !== 'charset') return true;
  const charset = parameter
    .slice(separator + 1)
    .trim()
    .replace(/^"(.*)"$/, '$1');
  return charset === 'utf-8' || charset === 'utf8';
}

/** A compressed body would escape the size limit, so only identity is accepted. */
function isIdentityEncoding(header: HeaderValue): boolean {
  const value = singleHeader(header);
  return value === undefined || value.trim() === '' || value.trim().toLowerCase() === 'identity';
}

/**
 * Refuses strings (values and keys) that not every storage can keep: NUL and unpaired
 * surrogates; the error names the first one in document order
 * (docs/contract/limits-and-errors.md#field-error-cap), a key by its object's path.
 * Iterative, so a deeply nested body cannot overflow the stack; each entry links to its
 * parent instead of carrying a copy of its path, so a body nested 30,000 deep costs 30,000
 * steps, not 30,000² copied path elements.
 */
function checkStrings(root: unknown): void {
  const stack: Visit[] = [{ value: root, parent: undefined, key: 'body' }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, parent, key } = visit;
    // A key is checked when its entry comes off the stack: after everything before it.
    if (parent !== undefined && typeof key === 'string' && !isHoldable(key)) fail({ kind: 'validation', errors: [unicodeError(pathOf(parent))] });
    if (typeof value === 'string') {
      if (!isHoldable(value)) fail({ kind: 'validation', errors: [unicodeError(pathOf(visit))] });
    } else if (Array.isArray(value)) {
      // Pushed last to first, so that they come off the stack in document order.
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], parent: visit, key: i });
    } else if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value);
      for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: (value as Record<string, unknown>)[keys[i]!], parent: visit, key: keys[i]! });
    }
  }
}

interface Visit {
  value: unknown;
  parent: Visit | undefined;
  key: string | number;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

function unicodeError(path: (string | number)[]): FieldError {
  return { loc: path, msg: 'Input should be a valid string without NUL characters or unpaired surrogates', type: 'string_unicode' };
}
