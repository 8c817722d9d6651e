import { describe, expect, it } from 'vitest';
import { TilecastError, type ServiceError } from '../../src/errors.js';
import { BODY_LIMIT_BYTES, isJsonMediaType, readJsonBody } from '../../src/http/body.js';
import type { CoreRequest, RequestBody } from '../../src/http/types.js';

const bytes = (text: string | Uint8Array): RequestBody => ({
  kind: 'raw',
  read: async (limit) => {
    const data = typeof text === 'string' ? new TextEncoder().encode(text) : text;
    return data.byteLength > limit ? 'too_large' : data;
  },
});

const req = (body: RequestBody, headers: Record<string, string> = { 'content-type': 'application/json' }): CoreRequest => ({
  method: 'PATCH',
  path: '/x',
  query: new URLSearchParams(),
  headers,
  body,
});

async function refusal(request: CoreRequest): Promise<ServiceError> {
  try {
    await readJsonBody(request);
  } catch (error) {
    if (error instanceof TilecastError) return error.error;
    throw error;
  }
  throw new Error('accepted');
}

const jsonInvalid = { kind: 'validation', errors: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] };

describe('media types', () => {
  it.each([
    undefined,
    'application/json',
    'APPLICATION/JSON',
    'application/json; charset=utf-8',
    'application/json;charset="UTF-8"',
    ' application/json',
    'application/merge-patch+json',
    'application/vnd.api+json; x=1',
  ])('accepts %j', (type) => expect(isJsonMediaType(type)).toBe(true));
  it.each([
    'text/plain',
    'application/json;charset=latin1',
    'application/json\tx',
    'application/json garbage',
    'application/jsonx',
    'application/',
    '/json',
    'application/json/x',
    'multipart/form-data',
    '',
  ])('refuses %j', (type) => expect(isJsonMediaType(type)).toBe(false));
  it('415 for a compressed body', async () => {
    expect(await refusal(req(bytes('{}'), { 'content-type': 'application/json', 'content-encoding': 'gzip' }))).toEqual({ kind: 'unsupported_media_type' });
  });
});

describe('size', () => {
  it('413 from a declared Content-Length over the limit, before reading', async () => {
    let read = false;
    const body: RequestBody = { kind: 'raw', read: async () => ((read = true), new Uint8Array()) };
    expect(await refusal(req(body, { 'content-length': String(BODY_LIMIT_BYTES + 1) }))).toEqual({ kind: 'payload_too_large' });
    expect(read).toBe(false);
  });
  it('413 from the bytes read; exactly the limit is fine', async () => {
    expect(await refusal(req(bytes(' '.repeat(BODY_LIMIT_BYTES - 2) + '{}' + ' ')))).toEqual({ kind: 'payload_too_large' });
    await expect(readJsonBody(req(bytes(' '.repeat(BODY_LIMIT_BYTES - 2) + '{}')))).resolves.toEqual({});
  });
  it('a pre-parsed body is measured too', async () => {
    const big = { padding: 'x'.repeat(BODY_LIMIT_BYTES) };
    expect(await refusal(req({ kind: 'parsed', value: big }))).toEqual({ kind: 'payload_too_large' });
    expect(await refusal(req({ kind: 'parsed', value: {}, byteLength: 0 }))).toEqual(jsonInvalid);
  });
});

describe('decoding', () => {
  it.each([
    ['empty', ''],
    ['not JSON', '{"a": '],
    ['BOM', '\uFEFF{}'],
    ['trailing garbage', '{} x'],
  ])('%s is json_invalid', async (_, text) => {
    expect(await refusal(req(bytes(text)))).toEqual(jsonInvalid);
  });
  it('invalid UTF-8 is json_invalid, never replaced by U+FFFD', async () => {
    expect(await refusal(req(bytes(new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]))))).toEqual(jsonInvalid);
  });
  it.each([
    ['a lone surrogate', '{"a":{"b":["\\ud800"]}}', ['body', 'a', 'b', 0]],
    ['NUL', '{"a":"x\\u0000y"}', ['body', 'a']],
    ['a lone surrogate in a key', '{"a":{"\\udc00":1}}', ['body', 'a']],
    // docs/contract/limits-and-errors.md#field-error-cap: of several, the first in document order.
    ['the first of two values', '{"token":"\\ud800A","x":"\\udc00"}', ['body', 'token']],
    ['a value before a later key', '{"a":["\\u0000"],"\\u0000":1}', ['body', 'a', 0]],
    ['a key before a later value', '{"a":{"\\u0000":1},"b":"\\u0000"}', ['body', 'a']],
    ['an array item before a later sibling', '[{"a":"\\u0000"},"\\ud800"]', ['body', 0, 'a']],
  ])('%s is a 422 at its location', async (_, text, loc) => {
    const error = await refusal(req(bytes(text)));
    expect(error).toMatchObject({ kind: 'validation', errors: [{ loc, type: 'string_unicode' }] });
  });
  it('a well-formed surrogate pair and other escapes are fine', async () => {
    await expect(readJsonBody(req(bytes('{"a":"\\ud83d\\ude00\\n"}')))).resolves.toEqual({ a: '😀\n' });
  });
  it('deep nesting is checked without recursion, in linear time, and located exactly', async () => {
    const deep = '['.repeat(30_000) + '"\\u0000"' + ']'.repeat(30_000);
    const error = await refusal(req(bytes(deep)));
    expect(error).toMatchObject({ kind: 'validation', errors: [{ loc: ['body', ...Array<number>(30_000).fill(0)], type: 'string_unicode' }] });
  });
  it('a host parser refusal is reported when the body is read', async () => {
    expect(await refusal(req({ kind: 'refused', error: { kind: 'payload_too_large' } }))).toEqual({ kind: 'payload_too_large' });
  });
});
