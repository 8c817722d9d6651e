/**
 * `PUT /device/fcm` and `DELETE /device/fcm` as a hostile client sends them (issue 36), through
 * every adapter on both stores, over raw HTTP on 127.0.0.1: fuzzed credentials, media types,
 * encodings and bodies (wrong types, huge tokens, NUL, lone surrogates, control and non-ASCII
 * characters, extra, missing and duplicate keys, bodies that are not JSON, bodies at and over
 * the limit, chunked or not). Unlike the generic fuzz test (./endpoints.fuzz.test.ts), which
 * checks that no answer is a 5xx or of the wrong shape, each answer here is checked against
 * the one the contract gives (status, detail, field errors' `loc` and `type`), and the store
 * against what that answer says was done: the authenticated device's token written or
 * removed, every other device's left as it was, nothing at all on a refusal.
 *
 * The oracle, in the contract's order: credentials (docs/contract/device-api.md#device-auth,
 * docs/contract/publisher-api.md#authorization-header-repeated); `DELETE` takes no body
 * (docs/contract/device-api.md#device-fcm-remove); media type and encoding
 * (docs/contract/limits-and-errors.md#body-content-type, docs/contract/limits-and-errors.md#body-content-encoding);
 * size (docs/contract/limits-and-errors.md#body-size-limit); JSON
 * (docs/contract/limits-and-errors.md#json-invalid, docs/contract/limits-and-errors.md#body-duplicate-keys);
 * strings a store cannot hold (docs/contract/limits-and-errors.md#unholdable-values); the body's
 * schema (docs/contract/device-api.md#device-fcm-register, docs/contract/limits-and-errors.md#field-error-cap).
 *
 * Seeded and bounded (TILECAST_FUZZ_SEED, TILECAST_FCM_FUZZ_RUNS requests per adapter and store).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adapters, startApi, type AdapterName, type ApiServer } from '../support/api-server.js';
import { seedFixture, type Fixture } from '../support/fixtures.js';
import { openStore, stores, type StoreName, type TestStore } from '../support/stores.js';
import { describeReply, describeRequest } from './check.js';
import { sendRaw, type RawReply, type RawRequest } from './raw-http.js';
import { integerSetting } from './settings.js';

const SEED = integerSetting('TILECAST_FUZZ_SEED', 20);
const RUNS = integerSetting('TILECAST_FCM_FUZZ_RUNS', 150);
const TIMEOUT_MS = integerSetting('TILECAST_FUZZ_TIMEOUT_MS', 5_000);
const LIMIT = 64 * 1024;
const MAX_FIELD_ERRORS = 64;

const DEVICES = ['acme-phone', 'acme-tablet', 'guest-phone'] as const;
type DeviceId = (typeof DEVICES)[number];
const CREDENTIALS = { detail: 'Could not validate credentials' };

// ---------------------------------------------------------------------------- the requests

type Credentials =
  | { kind: 'device'; device: DeviceId }
  | { kind: 'none' }
  | { kind: 'publisher-as-device' }
  | { kind: 'publisher' }
  | { kind: 'twice'; devices: [DeviceId, DeviceId] }
  | { kind: 'mangled'; device: DeviceId; how: 'suffix' | 'two-spaces' | 'tab' | 'bearer' | 'bare' | 'no-token' | 'latin1' | 'utf8' | 'surrogate-bytes' };

/** A body as bytes, with what the contract makes of it before its schema is checked. */
type Body = { kind: 'json'; text: string; chunked: boolean } | { kind: 'not-json'; bytes: Uint8Array; chunked: boolean } | { kind: 'none' };

interface Case {
  method: 'PUT' | 'DELETE';
  credentials: Credentials;
  contentType: { value: string | undefined; json: boolean };
  encoding: { value: string | undefined; identity: boolean };
  body: Body;
}

const VALID_CHARS = 'ABCXYZabcxyz0189:_-';
const validToken = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: fc.constantFrom(...VALID_CHARS), minLength: 1, maxLength: 200 }) },
  { weight: 1, arbitrary: fc.constantFrom('x', '-', ':', 'A'.repeat(4096), `${'aB9:_-'.repeat(682)}zzzz`) },
);

/** Characters outside `A-Z a-z 0-9 : _ -`, some that no store can hold. */
const foreign = fc.constantFrom(
  ' ',
  '\n',
  '\t',
  '\r',
  '\u0001',
  '\u007f',
  '/',
  '+',
  '=',
  '.',
  '"',
  '\\',
  'é',
  'İ',
  'ß',
  '\u00a0',
  '\u200b',
  '\ufeff',
  '\uff21',
  '😀',
  '\u0000',
  '\ud800',
  '\udfff',
);

/** Values for the `token` key: valid, invalid strings and values of other types. */
const tokenValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: validToken },
  {
    weight: 3,
    arbitrary: fc
      .tuple(validToken, foreign, fc.nat())
      .map(([token, bad, at]) => token.slice(0, at % (token.length + 1)) + bad + token.slice(at % (token.length + 1))),
  },
  { weight: 1, arbitrary: fc.constantFrom('', 'a'.repeat(4097), 'Z'.repeat(20_000), `${'a:'.repeat(3000)}é`) },
  { weight: 2, arbitrary: fc.constantFrom(0, -1, 1.5, 4096, true, false, null, [], ['abc'], {}, { token: 'abc' }) },
);

/** Extra values, some holding (deep down) a string no store can hold. */
const extraValue: fc.Arbitrary<unknown> = fc.constantFrom(
  'x',
  1,
  null,
  true,
  [],
  {},
  'a\u0000b',
  '\udc00',
  ['ok', 'ok\ud800'],
  { '\u0000': 1 },
  { nested: ['\u0000'] },
);
const extraKey = fc.constantFrom(
  'x',
  'environment',
  'Token',
  'TOKEN',
  ' token',
  'token ',
  'tokens',
  '',
  '__proto__',
  'constructor',
  'prototype',
  'tök',
  'k\u0000',
  '\ud83d',
);

type Entry = [key: string, value: unknown, escapeKey: boolean];

/** An object body as entries in document order: the token (maybe twice, maybe missing) and extras. */
const objectEntries: fc.Arbitrary<Entry[]> = fc
  .record({
    tokens: fc.array(tokenValue, { minLength: 0, maxLength: 3 }),
    escapeKey: fc.boolean(),
    extras: fc.oneof(
      { weight: 6, arbitrary: fc.constant(0) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 3 }) },
      { weight: 1, arbitrary: fc.integer({ min: 63, max: 120 }) },
    ),
    extraKeys: fc.array(extraKey, { minLength: 3, maxLength: 3 }),
    extraValues: fc.array(extraValue, { minLength: 3, maxLength: 3 }),
    order: fc.array(fc.nat(), { minLength: 130, maxLength: 130 }),
  })
  .map(({ tokens, escapeKey, extras, extraKeys, extraValues, order }) => {
    const rest: Entry[] =
      extras <= 3 ? extraKeys.slice(0, extras).map((key, i) => [key, extraValues[i], false]) : Array.from({ length: extras }, (_, i) => [`k${i}`, i, false]);
    // The token keys and the extras, interleaved in a generated order.
    const entries: Entry[] = [];
    const queues = [tokens.map((value): Entry => ['token', value, escapeKey]), rest];
    for (let i = 0; queues.some((queue) => queue.length > 0); i++) {
      const pick = queues[0]!.length === 0 ? 1 : queues[1]!.length === 0 ? 0 : order[i % order.length]! % 2;
      entries.push(queues[pick]!.shift()!);
    }
    return entries;
  });

const keyText = (key: string, escaped: boolean) =>
  escaped ? `"${[...key].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"` : JSON.stringify(key);
const objectText = (entries: Entry[]) => `{${entries.map(([key, value, escaped]) => `${keyText(key, escaped)}:${JSON.stringify(value)}`).join(',')}}`;

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'utf8') : Buffer.from(part))));

/** Bodies that are not JSON: empty, cut short, two values, a BOM, invalid UTF-8 (also in a string). */
const notJson: fc.Arbitrary<Uint8Array> = fc.constantFrom(
  bytes(''),
  bytes('   '),
  bytes('{'),
  bytes('{"token":'),
  bytes('{"token":"abc",}'),
  bytes("{'token':'abc'}"),
  bytes('{"token":"abc"}{"token":"def"}'),
  bytes('{"token":"abc"} x'),
  bytes('NaN'),
  bytes('{"token":abc}'),
  bytes([0xef, 0xbb, 0xbf], '{"token":"abc"}'),
  bytes('{"token":"ab', [0xff], 'c"}'),
  bytes('{"token":"ab', [0xc0, 0xaf], 'c"}'),
  bytes('{"token":"ab', [0xed, 0xa0, 0x80], 'c"}'),
  bytes('{"token":"ab\\u12"}'),
  bytes('{"token":"a\u0001b"}'), // a raw control character inside a JSON string
);

/** JSON bodies: objects as above, other JSON values, and whitespace-padded to the size limit and over. */
const jsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 10, arbitrary: objectEntries.map(objectText) },
  { weight: 1, arbitrary: fc.constantFrom('[]', '[{"token":"abc"}]', '"abc"', '1', 'null', 'true', '{"token":"abc"}'.padStart(LIMIT)) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(objectEntries.map(objectText), fc.constantFrom(LIMIT - 1, LIMIT, LIMIT + 1, LIMIT + 5_000, 300_000, 1_200_000))
      .map(([text, size]) => (text.length >= size ? text : text.slice(0, -1) + ' '.repeat(size - text.length) + '}')),
  },
);

const body: fc.Arbitrary<Body> = fc.oneof(
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('json' as const), text: jsonText, chunked: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('not-json' as const), bytes: notJson, chunked: fc.boolean() }) },
);

const contentType = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom(
        undefined,
        'application/json',
        'Application/JSON',
        'application/json; charset=utf-8',
        'application/json;charset="UTF8"',
        'application/fcm+json',
      )
      .map((value) => ({ value, json: true })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(
        'text/plain',
        'application/json; charset=latin1',
        'application/json; charset=utf-16',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonx',
        'json',
      )
      .map((value) => ({ value, json: false })),
  },
);

const encoding = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(undefined, 'identity').map((value) => ({ value, identity: true })) },
  { weight: 1, arbitrary: fc.constantFrom('gzip', 'br', 'deflate').map((value) => ({ value, identity: false })) },
);

const device = fc.constantFrom(...DEVICES);
const credentials: fc.Arbitrary<Credentials> = fc.oneof(
  { weight: 8, arbitrary: device.map((d): Credentials => ({ kind: 'device', device: d })) },
  {
    weight: 3,
    arbitrary: fc.oneof(
      fc.constant<Credentials>({ kind: 'none' }),
      fc.constant<Credentials>({ kind: 'publisher-as-device' }),
      fc.constant<Credentials>({ kind: 'publisher' }),
      fc.tuple(device, device).map((devices): Credentials => ({ kind: 'twice', devices })),
      fc
        .tuple(
          device,
          fc.constantFrom('suffix', 'two-spaces', 'tab', 'bearer', 'bare', 'no-token', 'latin1', 'utf8', 'surrogate-bytes') as fc.Arbitrary<'suffix'>,
        )
        .map(([d, how]): Credentials => ({ kind: 'mangled', device: d, how })),
    ),
  },
);

const fuzzCase: fc.Arbitrary<Case> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ method: fc.constant('PUT' as const), credentials, contentType, encoding, body }) },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constant('DELETE' as const),
      credentials,
      contentType,
      encoding,
      body: fc.oneof({ weight: 3, arbitrary: fc.constant<Body>({ kind: 'none' }) }, { weight: 1, arbitrary: body }),
    }),
  },
);

// ---------------------------------------------------------------------------- the oracle

interface Expected {
  status: number;
  /** A `detail` string, or the field errors' `loc` and `type` in order. */
  detail?: string | Array<{ loc: (string | number)[]; type: string }>;
  /** What the store holds afterwards for the authenticated device (unchanged when absent). */
  write?: { device: DeviceId; token: string | null };
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: a NUL is what no store can hold
const HOLDABLE = /^(?:[^\u0000\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/;
const holdable = (text: string) => HOLDABLE.test(text);

/** The first string (key or value) no store can hold, in document order: its object's or its own path. */
function firstUnholdable(value: unknown, path: (string | number)[]): (string | number)[] | null {
  if (typeof value === 'string') return holdable(value) ? null : path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = firstUnholdable(value[i], [...path, i]);
      if (found !== null) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (!holdable(key)) return path;
      const found = firstUnholdable(item, [...path, key]);
      if (found !== null) return found;
    }
  }
  return null;
}

function tokenError(value: unknown): string | null {
  if (typeof value !== 'string') return 'string_type';
  if (value.length < 1) return 'string_too_short';
  if (value.length > 4096) return 'string_too_long';
  return /^[A-Za-z0-9:_-]+$/.test(value) ? null : 'string_pattern_mismatch';
}

/**
 * The text a host's `express.json()` makes of bytes: decoded leniently (invalid UTF-8 becomes
 * U+FFFD), a leading BOM dropped. Its parsed value is used as it is (packages/adapter-express/README.md).
 */
function hostParserText(body: Uint8Array): string {
  return Buffer.from(body)
    .toString('utf8')
    .replace(/^\uFEFF/, '');
}

/** Whether a host's `express.json()` reads the body: `application/json` with no charset or a `utf-` one. */
function hostParses(adapter: AdapterName, type: string | undefined): boolean {
  return adapter === 'express+json' && type !== undefined && /^application\/json\s*(;\s*charset=utf-\S*)?$/i.test(type);
}

/** The test host's `express.json({ limit: '1mb' })`. */
const HOST_LIMIT = 1024 * 1024;

/**
 * The size the 64 KiB limit is applied to: the bytes sent; behind a host parser that took a
 * chunked body (no `Content-Length`), the size of the parsed value as compact JSON
 * (packages/adapter-express/README.md: "from `Content-Length`, or the parsed size").
 */
function bodySize(sent: Exclude<Body, { kind: 'none' }>, hostParsed: boolean): number {
  const bytes = sent.kind === 'json' ? Buffer.from(sent.text) : sent.bytes;
  if (!hostParsed || !sent.chunked || bytes.byteLength > HOST_LIMIT) return bytes.byteLength;
  const text = hostParserText(bytes);
  return isJson(text) ? Buffer.byteLength(JSON.stringify(JSON.parse(text))) : bytes.byteLength;
}

function expectedOf(testCase: Case, adapter: AdapterName): Expected {
  const { credentials: who } = testCase;
  if (who.kind !== 'device') return { status: 401, detail: CREDENTIALS.detail };
  if (testCase.method === 'DELETE') return { status: 204, write: { device: who.device, token: null } };
  if (!testCase.contentType.json || !testCase.encoding.identity) return { status: 415, detail: 'Unsupported Media Type' };
  const sent = testCase.body;
  if (sent.kind === 'none') throw new Error('a PUT always has a body here');
  if (bodySize(sent, hostParses(adapter, testCase.contentType.value)) > LIMIT) return { status: 413, detail: 'Request body too large' };
  let text = sent.kind === 'json' ? sent.text : null;
  if (sent.kind === 'not-json' && hostParses(adapter, testCase.contentType.value)) {
    if (isJson(hostParserText(sent.bytes))) text = hostParserText(sent.bytes);
    // A gap left open: express.json() makes `{}` of an empty body, and without a
    // `Content-Length` (chunked) nothing tells the adapter that the body was empty.
    if (sent.chunked && sent.bytes.byteLength === 0) text = '{}';
  }
  if (text === null) return { status: 422, detail: [{ loc: ['body'], type: 'json_invalid' }] };
  // The same parse the contract describes: standard JSON, the last of a repeated key wins.
  const value: unknown = JSON.parse(text);
  const unholdable = firstUnholdable(value, ['body']);
  if (unholdable !== null) return { status: 422, detail: [{ loc: unholdable, type: 'string_unicode' }] };
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { status: 422, detail: [{ loc: ['body'], type: 'dict_type' }] };
  const errors: Array<{ loc: (string | number)[]; type: string }> = [];
  const token = (value as Record<string, unknown>).token;
  const problem = Object.hasOwn(value, 'token') ? tokenError(token) : 'missing';
  if (problem !== null) errors.push({ loc: ['body', 'token'], type: problem });
  for (const key of Object.keys(value)) if (key !== 'token') errors.push({ loc: ['body', key], type: 'extra_forbidden' });
  if (errors.length > 0) return { status: 422, detail: errors.slice(0, MAX_FIELD_ERRORS) };
  return { status: 204, write: { device: who.device, token: token as string } };
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------- sending

function headersOf(testCase: Case, tokens: Record<DeviceId, string>, publisher: string): Array<[string, string | Uint8Array]> {
  const headers: Array<[string, string | Uint8Array]> = [];
  const who = testCase.credentials;
  const latin1 = (text: string) => Buffer.from(text, 'latin1');
  switch (who.kind) {
    case 'device':
      headers.push(['Authorization', `Device ${tokens[who.device]}`]);
      break;
    case 'none':
      break;
    case 'publisher-as-device':
      headers.push(['Authorization', `Device ${publisher}`]);
      break;
    case 'publisher':
      headers.push(['Authorization', `Token ${publisher}`]);
      break;
    case 'twice':
      headers.push(['Authorization', `Device ${tokens[who.devices[0]]}`], ['Authorization', `Device ${tokens[who.devices[1]]}`]);
      break;
    case 'mangled': {
      const token = tokens[who.device];
      const header = {
        suffix: latin1(`Device ${token}x`),
        'two-spaces': latin1(`Device  ${token}`),
        tab: latin1(`Device\t${token}`),
        bearer: latin1(`Bearer ${token}`),
        bare: latin1(token),
        'no-token': latin1('Device '),
        latin1: Buffer.concat([latin1(`Device ${token}`), Buffer.from([0xe9])]),
        utf8: Buffer.concat([latin1(`Device ${token}`), Buffer.from('é', 'utf8')]),
        'surrogate-bytes': Buffer.concat([latin1(`Device ${token}`), Buffer.from([0xed, 0xa0, 0x80])]),
      }[who.how];
      headers.push(['Authorization', header]);
      break;
    }
  }
  if (testCase.contentType.value !== undefined) headers.push(['Content-Type', testCase.contentType.value]);
  if (testCase.encoding.value !== undefined) headers.push(['Content-Encoding', testCase.encoding.value]);
  return headers;
}

function rawRequestOf(testCase: Case, prefix: string, tokens: Record<DeviceId, string>, publisher: string): RawRequest {
  const sent = testCase.body;
  const raw: RawRequest = { method: testCase.method, target: `${prefix}/device/fcm`, headers: headersOf(testCase, tokens, publisher) };
  if (sent.kind === 'json') Object.assign(raw, { body: Buffer.from(sent.text, 'utf8'), chunked: sent.chunked });
  if (sent.kind === 'not-json') Object.assign(raw, { body: sent.bytes, chunked: sent.chunked });
  return raw;
}

/** The answer's problems against the expected one (empty when it is right). */
function answerProblems(reply: RawReply, expected: Expected, sentToken: string | null): string[] {
  const found: string[] = [];
  if (reply.status !== expected.status) found.push(`status ${reply.status}, expected ${expected.status}`);
  if (expected.status === 204) {
    if (reply.body.byteLength !== 0) found.push('a body on 204');
    return found;
  }
  const type = reply.headers['content-type'] ?? [];
  if (type.length !== 1 || !/^application\/json(;|$)/i.test(type[0]!)) found.push(`error content-type ${JSON.stringify(type)}`);
  let body: { detail?: unknown };
  try {
    body = JSON.parse(reply.body.toString('utf8'));
  } catch {
    return [...found, 'error body is not JSON'];
  }
  if (Object.keys(body).join() !== 'detail') found.push(`error body keys ${JSON.stringify(Object.keys(body))}`);
  if (typeof expected.detail === 'string') {
    if (body.detail !== expected.detail) found.push(`detail ${JSON.stringify(body.detail)}, expected ${JSON.stringify(expected.detail)}`);
  } else if (expected.detail !== undefined) {
    const items = Array.isArray(body.detail) ? (body.detail as Array<{ loc: unknown; msg: unknown; type: unknown }>) : [];
    const got = items.map(({ loc, type }) => ({ loc, type }));
    if (JSON.stringify(got) !== JSON.stringify(expected.detail))
      found.push(`field errors ${JSON.stringify(got).slice(0, 400)}, expected ${JSON.stringify(expected.detail).slice(0, 400)}`);
    if (!items.every((item) => typeof item.msg === 'string')) found.push('a field error without a msg string');
  }
  // docs/contract/limits-and-errors.md#field-error-no-input: the refused token is never echoed.
  if (sentToken !== null && sentToken.length >= 12 && reply.body.toString('utf8').includes(sentToken)) found.push('the token is echoed');
  return found;
}

/** The `token` string a PUT body carries (the last one), to look for an echo of it. */
function sentTokenOf(testCase: Case): string | null {
  if (testCase.body.kind !== 'json') return null;
  try {
    const value: unknown = JSON.parse(testCase.body.text);
    const token = value !== null && typeof value === 'object' ? (value as Record<string, unknown>).token : undefined;
    return typeof token === 'string' ? token : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------- the runs

const combos = adapters.flatMap((adapter) => stores.map((store): [AdapterName, StoreName] => [adapter, store]));

describe.each(combos)('PUT and DELETE /device/fcm from a hostile client, through %s on %s storage', (adapter, store) => {
  let opened: TestStore;
  let api: ApiServer;
  let f: Fixture;
  let port: number;
  let prefix: string;
  let tokens: Record<DeviceId, string>;
  const statuses = new Map<number, number>();

  beforeAll(async () => {
    opened = await openStore(store);
    api = await startApi(adapter, { storage: opened.storage });
    f = await seedFixture(api.tilecast);
    // A second device of acme's: a device must not reach its own account's other devices either.
    const tablet = await api.tilecast.management.registerDevice({ id: 'acme-tablet', account: 'acme' });
    tokens = { 'acme-phone': f.deviceToken, 'acme-tablet': tablet.token, 'guest-phone': f.guestToken };
    const url = new URL(api.url);
    port = Number(url.port);
    prefix = url.pathname.replace(/\/$/, '');
  });

  afterAll(async () => {
    await api?.close();
    await opened?.release();
    console.log(`fcm fuzz ${adapter}/${store}: ${[...statuses].map(([status, n]) => `${status}×${n}`).join(' ')}`);
  });

  const held = async () =>
    Object.fromEntries(await Promise.all(DEVICES.map(async (id) => [id, await opened.storage.getFcmToken(id)] as const))) as Record<DeviceId, string | null>;

  it('answers each request as the contract says, and the store holds what the answer says was done', async () => {
    const property = fc.asyncProperty(fuzzCase, async (testCase) => {
      const before = await held();
      const expected = expectedOf(testCase, adapter);
      const request = rawRequestOf(testCase, prefix, tokens, f.acme);
      const reply = await sendRaw(port, request, TIMEOUT_MS);
      statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
      const after = await held();
      const wanted = { ...before, ...(expected.write === undefined ? {} : { [expected.write.device]: expected.write.token }) };
      const found = answerProblems(reply, expected, sentTokenOf(testCase));
      for (const id of DEVICES)
        if (after[id] !== wanted[id])
          found.push(`${id} holds ${JSON.stringify(after[id])?.slice(0, 60)}, expected ${JSON.stringify(wanted[id])?.slice(0, 60)}`);
      if (found.length > 0) throw new Error(`${found.join('; ')}\n${describeRequest(request)}\n→ ${describeReply(reply)}`);
    });
    await fc.assert(property, { seed: SEED, numRuns: RUNS, interruptAfterTimeLimit: 15_000 });
    // The runs reached every kind of answer, not only the refusals before the body.
    for (const status of [204, 401, 413, 415, 422]) expect(statuses.get(status) ?? 0, `answers ${status}`).toBeGreaterThan(0);
  }, 30_000);
});
