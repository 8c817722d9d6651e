/**
 * fast-check arbitraries for the fuzz test: for each endpoint, a valid request (valid
 * token, valid body) with mutations layered on top, so that most requests get past
 * authentication and reach validation, storage and the handlers.
 *
 * Bodies are built as a small JSON syntax tree (so a body can hold duplicate keys,
 * `__proto__` keys and number literals such as `1e400` that `JSON.stringify` cannot
 * write), serialised, then optionally mutated as bytes (truncation, BOM, invalid UTF-8,
 * NUL bytes, other encodings).
 */
import fc from 'fast-check';
import type { RawRequest } from './raw-http.js';

// ---------------------------------------------------------------------------- JSON tree

export type JsonNode = { k: 'lit'; text: string } | { k: 'arr'; items: JsonNode[] } | { k: 'obj'; entries: Array<[string, JsonNode]> };

const lit = (text: string): JsonNode => ({ k: 'lit', text });

export function toNode(value: unknown): JsonNode {
  if (Array.isArray(value)) return { k: 'arr', items: value.map(toNode) };
  if (value !== null && typeof value === 'object') return { k: 'obj', entries: Object.entries(value).map(([key, item]) => [key, toNode(item)]) };
  return lit(JSON.stringify(value));
}

export function serialize(node: JsonNode): string {
  if (node.k === 'lit') return node.text;
  if (node.k === 'arr') return `[${node.items.map(serialize).join(',')}]`;
  return `{${node.entries.map(([key, item]) => `${JSON.stringify(key)}:${serialize(item)}`).join(',')}}`;
}

function clone(node: JsonNode): JsonNode {
  if (node.k === 'lit') return node;
  if (node.k === 'arr') return { k: 'arr', items: node.items.map(clone) };
  return { k: 'obj', entries: node.entries.map(([key, item]) => [key, clone(item)]) };
}

interface Slot {
  node: JsonNode;
  set(next: JsonNode): void;
}

/** Every node of the tree in document order, each with a way to replace it. */
function slots(root: { node: JsonNode }): Slot[] {
  const found: Slot[] = [];
  const walk = (node: JsonNode, set: (next: JsonNode) => void) => {
    found.push({ node, set });
    if (node.k === 'arr') node.items.forEach((item, i) => walk(item, (next) => (node.items[i] = next)));
    if (node.k === 'obj') node.entries.forEach((entry, i) => walk(entry[1], (next) => (node.entries[i] = [entry[0], next])));
  };
  walk(root.node, (next) => (root.node = next));
  return found;
}

export type TreeMutation =
  | { op: 'replace'; at: number; value: JsonNode }
  | { op: 'addKey'; at: number; key: string; value: JsonNode }
  | { op: 'dropKey'; at: number; which: number }
  | { op: 'duplicateKey'; at: number; value: JsonNode };

export function applyTreeMutations(tree: JsonNode, mutations: TreeMutation[]): JsonNode {
  const root = { node: clone(tree) };
  for (const mutation of mutations) {
    const all = slots(root);
    const slot = all[mutation.at % all.length]!;
    const node = slot.node;
    switch (mutation.op) {
      case 'replace':
        slot.set(mutation.value);
        break;
      case 'addKey':
        if (node.k === 'obj') node.entries.push([mutation.key, mutation.value]);
        else slot.set({ k: 'obj', entries: [[mutation.key, mutation.value]] });
        break;
      case 'dropKey':
        if (node.k === 'obj' && node.entries.length > 0) node.entries.splice(mutation.which % node.entries.length, 1);
        break;
      case 'duplicateKey':
        // The same key twice: the first value is the mutated one, the last the original.
        if (node.k === 'obj' && node.entries.length > 0) node.entries.unshift([node.entries[0]![0], mutation.value]);
        break;
    }
  }
  return root.node;
}

// ---------------------------------------------------------------------------- values

const depth = fc.constantFrom(16, 600, 10_000, 30_000);

/** Values no schema expects: edge numbers, odd strings, deep nesting, thousands of keys. */
export const weirdValue: fc.Arbitrary<JsonNode> = fc.oneof(
  fc.constantFrom(
    ...[
      'null',
      'true',
      'false',
      '0',
      '-0',
      '-0.0',
      '1e400',
      '-1e400',
      '1e-400',
      '9007199254740993',
      '-9007199254740993',
      '1e20',
      '1E2',
      '0.1',
      '-1',
      '1.5',
      '2147483648',
      '4294967296',
      '123456789012345678901234567890',
      '0e0',
      '""',
      '"\\u0000"',
      '"a\\u0000b"',
      '"\\ud800"',
      '"x\\udc00"',
      '"\\ud800\\ud800"',
      '"\\uffff"',
      '"\\ufeff"',
      '"\\u2028\\u2029"',
      '"{{request_id}}"',
      '"{{unknown}}"',
      '"https://127.0.0.1/"',
      '"https://[::1]/"',
      '"__proto__"',
      '"ONGOING"',
      '"IDLE"',
      '"\\"}\\n\\n data: forged"',
      '"😀"',
      '"\\ud83d\\ude00"',
      '"e\\u0301"',
      '[]',
      '{}',
      '[null]',
      '{"":""}',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{"x":1}}}',
      '{"\\u005f_proto__":{}}',
      '{"prototype":{}}',
      '{"toString":1,"hasOwnProperty":2,"valueOf":3}',
    ].map(lit),
  ),
  fc.constantFrom(1, 300, 5_000, 70_000).map((n) => lit(JSON.stringify('x'.repeat(n)))),
  fc.constantFrom(65, 1_000, 10_000).map((n) => lit(`[${Array.from({ length: n }, () => '0').join(',')}]`)),
  depth.map((d) => lit('['.repeat(d) + ']'.repeat(d))),
  depth.map((d) => lit('{"a":'.repeat(d) + '1' + '}'.repeat(d))),
  fc.constantFrom(65, 3_000, 6_000).map((n) => ({ k: 'obj' as const, entries: Array.from({ length: n }, (_, i): [string, JsonNode] => [`k${i}`, lit('1')]) })),
  fc.string({ unit: 'binary', maxLength: 40 }).map((s) => lit(JSON.stringify(s))),
  fc.double().map((d) => lit(Number.isFinite(d) ? JSON.stringify(d) : '1e400')),
  fc.integer().map((n) => lit(String(n))),
  fc.jsonValue({ maxDepth: 3 }).map(toNode),
);

export const weirdKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    'valueOf',
    '',
    ' ',
    '\u0000',
    '\ud800',
    'x'.repeat(300),
    'state',
    'content',
    'template',
    'webhooks',
    '*',
    'detail',
    'loc',
  ),
  fc.string({ unit: 'binary', maxLength: 12 }),
);

const treeMutation = (value: fc.Arbitrary<JsonNode>): fc.Arbitrary<TreeMutation> =>
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ op: fc.constant('replace' as const), at: fc.nat(), value }) },
    { weight: 2, arbitrary: fc.record({ op: fc.constant('addKey' as const), at: fc.nat(), key: weirdKey, value }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('dropKey' as const), at: fc.nat(), which: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant('duplicateKey' as const), at: fc.nat(), value }) },
  );

// ---------------------------------------------------------------------------- bytes

export type ByteMutation =
  | { op: 'truncate'; at: number }
  | { op: 'insert'; at: number; bytes: number[] }
  | { op: 'bom' }
  | { op: 'replaceAll'; text: string }
  | { op: 'encoding'; as: 'latin1' | 'utf16le' };

const byteMutation: fc.Arbitrary<ByteMutation> = fc.oneof(
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({
    op: fc.constant('insert' as const),
    at: fc.nat(),
    bytes: fc.constantFrom<number[]>(
      [0x00],
      [0xff],
      [0x80],
      [0xc0, 0x80],
      [0xed, 0xa0, 0x80],
      [0xed, 0xbf, 0xbf],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0xef, 0xbb, 0xbf],
      [0x0a],
      [0x22],
      [0x5c],
    ),
  }),
  fc.constant({ op: 'bom' as const }),
  fc.record({
    op: fc.constant('replaceAll' as const),
    text: fc.constantFrom(
      '',
      ' ',
      '\n',
      'null',
      'true',
      '1',
      '"x"',
      '[]',
      '{}',
      '{',
      '}',
      'not json',
      '{"a":1}garbage',
      '{"a":1}{"b":2}',
      '\u0000',
      '{"a":1,}',
      "{'a':1}",
      'NaN',
      '[1e400]',
    ),
  }),
  fc.record({ op: fc.constant('encoding' as const), as: fc.constantFrom('latin1' as const, 'utf16le' as const) }),
);

export function applyByteMutations(text: string, mutations: ByteMutation[]): Uint8Array {
  let bytes = Buffer.from(text, 'utf8');
  for (const mutation of mutations) {
    switch (mutation.op) {
      case 'truncate':
        bytes = bytes.subarray(0, mutation.at % (bytes.byteLength + 1));
        break;
      case 'insert': {
        const at = mutation.at % (bytes.byteLength + 1);
        bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(mutation.bytes), bytes.subarray(at)]);
        break;
      }
      case 'bom':
        bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes]);
        break;
      case 'replaceAll':
        bytes = Buffer.from(mutation.text, 'utf8');
        break;
      case 'encoding':
        bytes = Buffer.from(bytes.toString('utf8'), mutation.as);
        break;
    }
  }
  return bytes;
}

/** A valid body (from `valid`) with 0..3 tree mutations and sometimes a byte mutation. */
export function mutatedBody(valid: fc.Arbitrary<unknown>): fc.Arbitrary<{ body: Uint8Array; note: string }> {
  return fc
    .tuple(
      valid,
      fc.oneof(
        { weight: 2, arbitrary: fc.constant([] as TreeMutation[]) },
        { weight: 5, arbitrary: fc.array(treeMutation(weirdValue), { minLength: 1, maxLength: 3 }) },
      ),
      fc.oneof({ weight: 5, arbitrary: fc.constant([] as ByteMutation[]) }, { weight: 1, arbitrary: fc.array(byteMutation, { minLength: 1, maxLength: 2 }) }),
    )
    .map(([value, tree, bytes]) => {
      const text = serialize(applyTreeMutations(toNode(value), tree));
      return { body: applyByteMutations(text, bytes), note: `tree=${JSON.stringify(tree.map((m) => m.op))} bytes=${JSON.stringify(bytes)}` };
    });
}

// ---------------------------------------------------------------------------- valid bodies

const ISO = (minute: number) => new Date(Date.UTC(2026, 10, 22, 0, minute)).toISOString();

export const validActivityBody = (template: 'progress' | 'monitor' | 'generic') =>
  fc.record({
    state: fc.constantFrom('ONGOING', 'IDLE'),
    content:
      template === 'progress'
        ? fc.record({ template: fc.constant('progress'), progress: fc.record({ value: fc.double({ min: 0, max: 1, noNaN: true }) }) })
        : template === 'monitor'
          ? fc.record({ template: fc.constant('monitor'), left_column: fc.record({ value: fc.record({ value: fc.string({ maxLength: 10 }) }) }) })
          : fc.record({ template: fc.constant('generic'), progress: fc.integer({ min: 0, max: 100 }) }),
  });

export const validWidgetBody = (template: 'gauge' | 'switchboard' | 'prices') =>
  fc.record(
    {
      content:
        template === 'gauge'
          ? fc.record({
              template: fc.constant('gauge'),
              value: fc.double({ min: 0, max: 100, noNaN: true }),
              unit: fc.constant('°C'),
              label: fc.string({ maxLength: 20 }),
            })
          : template === 'switchboard'
            ? fc.record({
                template: fc.constant('switchboard'),
                title: fc.constant('Home'),
                actions: fc.constant([
                  { id: 'hall', label: 'Hall light', kind: 'toggle', on: false, icon: 'lightbulb' },
                  { id: 'bell', label: 'Doorbell' },
                ]),
              })
            : fc.integer({ min: 1, max: 48 }).chain((n) =>
                fc.record({
                  template: fc.constant('prices'),
                  unit: fc.constant('ct'),
                  entries: fc.tuple(
                    ...Array.from({ length: n }, (_, i) =>
                      fc.record({
                        start: fc.constant(ISO(i * 15)),
                        price: fc.constantFrom(0, -1.5, 1e20, 123.456),
                        level: fc.constantFrom('low', 'medium', 'high', null),
                      }),
                    ),
                  ),
                }),
              ),
      stale_after: fc.constantFrom(60, 3600, null, 604800),
    },
    { requiredKeys: ['content'] },
  );

const webhookEntry = fc.record(
  {
    url: fc.constantFrom(
      'https://hooks.example.com/t',
      'https://hooks.example.com/t/{{action}}?token=s3cr3t&v={{value}}',
      'https://hooks.example.com/{{request_id}}',
    ),
    method: fc.constantFrom('POST', 'PUT', 'PATCH', 'GET'),
    headers: fc.constantFrom({}, { 'X-Api-Key': 'k' }, { Authorization: 'Bearer x' }),
    body: fc.constantFrom(null, { on: '{{value}}' }, ['{{event_json}}']),
    secret: fc.constant('whsec'),
  },
  { requiredKeys: ['url'] },
);

export const validWebhookBody = fc
  .uniqueArray(fc.constantFrom('*', 'hall', 'bell', 'other', '__proto__', 'constructor', 'prototype'), { maxLength: 4 })
  .chain((keys) => fc.tuple(...keys.map(() => webhookEntry)).map((entries) => ({ webhooks: Object.fromEntries(keys.map((key, i) => [key, entries[i]])) })));

/** Mostly a press the device may make (acme's `lights`), so that many are accepted. */
const mostly = <T>(usual: T, ...others: T[]) => fc.oneof({ weight: 4, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: fc.constantFrom(...others) });

export const validPressBody = fc
  .tuple(
    fc.record({
      owner: mostly('acme', 'other', 'nobody'),
      slug: mostly('lights', 'boiler', 'secret-widget', 'nope'),
      request_id: fc.oneof(
        { weight: 4, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,16}$/) },
        { weight: 1, arbitrary: fc.constantFrom('../admin?x=1&', 'a\u0000b', '\ud800', 'x'.repeat(300), '', 'a b', 'é') },
      ),
    }),
    // `hall` is a toggle (a value), `bell` a button (none).
    fc.oneof(
      fc.boolean().map((value) => ({ action: 'hall', value })),
      fc.constant({ action: 'bell' }),
      fc.constant({ action: 'nope', value: true }),
    ),
  )
  .map(([target, action]) => ({ ...target, ...action }));

// ---------------------------------------------------------------------------- paths

/** Path segments a store cannot hold or a router may trip on, percent-encoded as sent. */
export const weirdSegment: fc.Arbitrary<string> = fc.oneof(
  // What no store can hold (NUL, lone surrogates): docs/contract/limits-and-errors.md#unholdable-values, issue 20 item 1.
  { weight: 3, arbitrary: fc.constantFrom('%00', 'a%00b', 'lights%00', 'boiler%00x', '%ED%A0%80', 'a%ED%A0%80b', '%ED%B0%80', 'lights%ED%B0%80') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '%F0%9F%98%80',
      '..',
      '.',
      '%2e%2e',
      '%2E',
      'a%2Fb',
      '%2F',
      '%',
      '%zz',
      '%E0%A4',
      '%C0%80',
      '%FF',
      '%C3%28',
      '%20',
      'lights%20',
      'LIGHTS',
      ';',
      'lights;x',
      '%25',
      '%5C',
      '%0A',
      '%0D%0A',
      '~',
      '*',
      '%2A',
      '__proto__',
      'constructor',
      'prototype',
      'hasOwnProperty',
      '',
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(256, 2_000, 9_000).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, 'x'))) },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: 'binary-ascii', maxLength: 20 })
      .map((s) => s.replace(/[^!-~]|[?#]/g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`)),
  },
);

/** A slug: mostly a real one (so the request reaches the handler), sometimes garbage. */
export const slugOf = (real: string[]) => fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...real) }, { weight: 2, arbitrary: weirdSegment });

/** Garbage around the path: none mostly, else trailing slashes, dot segments, a query. */
export const pathSuffix: fc.Arbitrary<string> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('/', '//', '/..', '/.', '/%2e%2e/x', '?', '?a=1', '?%zz', '?%00=%00', '#frag', '?x=' + 'y'.repeat(5_000)) },
);

// ---------------------------------------------------------------------------- headers

export type Header = [string, string | Uint8Array];

export interface Credentials {
  acme: string;
  other: string;
  unsubscribed: string;
  deviceToken: string;
  guestToken: string;
}

const bytes = (...parts: Array<string | number[]>): Uint8Array =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

/** `Authorization` headers for an endpoint whose valid scheme is `scheme` with `token`. */
export function authorization(scheme: 'Token' | 'Device', token: string, others: string[]): fc.Arbitrary<Header[]> {
  const good: Header = ['Authorization', `${scheme} ${token}`];
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant<Header[]>([good]) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Header[]>([['authorization', `${scheme.toLowerCase()} ${token}`]], [['AUTHORIZATION', `${scheme.toUpperCase()} ${token}`]]),
    },
    {
      weight: 4,
      arbitrary: fc.constantFrom<Header[]>(
        [],
        [['Authorization', '']],
        [['Authorization', 'Bearer x']],
        [['Authorization', scheme]],
        [['Authorization', `${scheme} `]],
        [['Authorization', `${scheme}  ${token}`]],
        [['Authorization', `${scheme}\t${token}`]],
        [['Authorization', `Basic Zm9vOmJhcg==`]],
        [['Authorization', `${scheme} ${token}x`]],
        [['Authorization', `${scheme} ${token},${scheme} x`]],
        [['Authorization', `${scheme} ${'a'.repeat(8_000)}`]],
        [['Authorization', bytes(`${scheme} ${token}`, [0x00])]],
        [['Authorization', bytes(`${scheme} `, [0x00])]],
        [['Authorization', bytes(`${scheme} `, [0xe9, 0xe9])]],
        [['Authorization', bytes(`${scheme} `, [0xc3, 0xb1, 0xc3, 0xb1])]],
        [['Authorization', bytes(`${scheme} `, [0xed, 0xa0, 0x80])]],
        [good, ['Authorization', `${scheme} bad`]],
        [['Authorization', `${scheme} bad`], good],
        [good, good],
        ...others.map((other): Header[] => [['Authorization', other]]),
      ),
    },
  );
}

export const contentType: fc.Arbitrary<Header[]> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<Header[]>([['Content-Type', 'application/json']]) },
  {
    weight: 3,
    arbitrary: fc.constantFrom<Header[]>(
      [],
      [['Content-Type', '']],
      [['Content-Type', 'text/plain']],
      [['Content-Type', 'application/json;charset=latin1']],
      [['Content-Type', 'application/json; charset=utf-16']],
      [['Content-Type', 'application/json; charset=utf-8']],
      [['Content-Type', ' application/json']],
      [['Content-Type', 'application/json\tx']],
      [['Content-Type', 'application/json garbage']],
      [['Content-Type', 'APPLICATION/JSON']],
      [['Content-Type', 'application/jsonx']],
      [['Content-Type', 'application/merge-patch+json']],
      [['Content-Type', 'multipart/form-data; boundary=x']],
      [['Content-Type', 'application/x-www-form-urlencoded']],
      [['Content-Type', '*/*']],
      [['Content-Type', ';;;']],
      [['Content-Type', bytes('application/json', [0xe9])]],
      [
        ['Content-Type', 'application/json'],
        ['Content-Type', 'text/plain'],
      ],
    ),
  },
);

export const contentEncoding: fc.Arbitrary<Header[]> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Header[]>([]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Header[]>(
      [['Content-Encoding', 'gzip']],
      [['Content-Encoding', 'deflate']],
      [['Content-Encoding', 'br']],
      [['Content-Encoding', 'identity']],
      [['Content-Encoding', 'x-unknown']],
      [['Content-Encoding', 'gzip, identity']],
    ),
  },
);

export const lastEventId: fc.Arbitrary<Header[]> = fc.oneof(
  { weight: 3, arbitrary: fc.constant<Header[]>([]) },
  {
    weight: 4,
    arbitrary: fc.constantFrom<Header[]>(
      [['Last-Event-ID', 'u:0']],
      [['Last-Event-ID', 'u:5']],
      [['Last-Event-ID', 'abc']],
      [['Last-Event-ID', 'u:']],
      [['Last-Event-ID', 'u:-1']],
      [['Last-Event-ID', 'u:1e3']],
      [['Last-Event-ID', 'u:9007199254740993']],
      [['Last-Event-ID', 'u:' + '9'.repeat(10_000)]],
      [['Last-Event-ID', '9'.repeat(10_000)]],
      [['Last-Event-ID', '']],
      [['Last-Event-ID', bytes('u:1', [0x00])]],
      [['Last-Event-ID', bytes('u:', [0xe9])]],
      [['Last-Event-ID', bytes('u:', [0xed, 0xa0, 0x80])]],
      [
        ['Last-Event-ID', 'u:1'],
        ['Last-Event-ID', 'u:2'],
      ],
    ),
  },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 30 }).map((s): Header[] => [['Last-Event-ID', s.replace(/[\r\n]/g, ' ')]]) },
);

/** Headers that every request may carry on top: mostly none. */
export const extraHeaders: fc.Arbitrary<Header[]> = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Header[]>([]) },
  {
    weight: 1,
    arbitrary: fc.constantFrom<Header[]>(
      [['Expect', '100-continue']],
      [['Expect', 'something-else']],
      [['Accept-Encoding', 'gzip, br']],
      [['Accept', 'text/html']],
      [['X-Forwarded-For', '1.2.3.4']],
      [['X-Big', 'y'.repeat(6_000)]],
      [['Cookie', '__proto__=1']],
    ),
  },
);

// ---------------------------------------------------------------------------- requests

export interface FuzzCase {
  request: RawRequest;
  /** What mutations made it, for the failure message. */
  note: string;
}

export interface Endpoint {
  name: string;
  cases: fc.Arbitrary<FuzzCase>;
}

const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

function build(
  method: fc.Arbitrary<string>,
  target: fc.Arbitrary<string>,
  headers: fc.Arbitrary<Header[]>[],
  body: fc.Arbitrary<{ body: Uint8Array; note: string }> | null,
): fc.Arbitrary<FuzzCase> {
  return fc
    .tuple(method, target, fc.tuple(...headers), body ?? fc.constant(null), fc.boolean(), fc.integer({ min: 0, max: 9 }))
    .map(([m, t, hs, b, chunked, noBodyOnGet]) => {
      // A body on a GET or DELETE now and then: it must not matter.
      const withBody = b !== null && (BODY_METHODS.has(m) || noBodyOnGet === 0);
      return {
        request: { method: m, target: t, headers: hs.flat(), body: withBody ? b.body : undefined, chunked: withBody && chunked },
        note: b === null ? '' : b.note,
      };
    });
}

export interface EndpointContext {
  /** Where Tilecast is mounted (`''` or `/svc`). */
  prefix: string;
  tokens: Credentials;
}

export function endpoints({ prefix, tokens }: EndpointContext): Endpoint[] {
  const publisherAuth = authorization('Token', tokens.acme, [`Token ${tokens.other}`, `Token ${tokens.unsubscribed}`, `Device ${tokens.deviceToken}`]);
  const deviceAuth = authorization('Device', tokens.deviceToken, [`Device ${tokens.guestToken}`, `Token ${tokens.acme}`, `Device ${tokens.acme}`]);
  const bodyHeaders = [contentType, contentEncoding, extraHeaders];
  const path = (template: (slug: string) => string, slugs: fc.Arbitrary<string>) =>
    fc.tuple(slugs, pathSuffix).map(([slug, suffix]) => prefix + template(slug) + suffix);
  const activitySlugs = slugOf(['build', 'deploy', 'release', 'temps', 'legacy', 'secret', 'nope']);
  const widgetSlugs = slugOf(['lights', 'boiler', 'tariff', 'secret-widget', 'nope']);
  const activityBody = fc.oneof(validActivityBody('progress'), validActivityBody('monitor'), validActivityBody('generic'));
  const widgetBody = fc.oneof(validWidgetBody('gauge'), validWidgetBody('switchboard'), validWidgetBody('prices'));
  const eventsQuery = fc
    .array(
      fc.oneof(
        fc.constantFrom(
          'types=widget.action.v1',
          'types=',
          'types=%00',
          'types=x'.repeat(3),
          'subject=widget/lights',
          'subject=activity/build',
          'subject=widget/',
          'subject=bad',
          'subject=widget/%00',
          'subject=%ED%A0%80',
          'subject=nope/x',
          'subject=widget/' + 'x'.repeat(3_000),
          '%zz',
          '=',
          '&',
          'subject',
          'types',
        ),
        fc
          .tuple(fc.constantFrom('types', 'subject'), fc.string({ unit: 'binary', maxLength: 20 }))
          .map(([k, v]) => `${k}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, 'x'))}`),
      ),
      { maxLength: 4 },
    )
    .chain((params) => fc.constantFrom(1, 1, 1, 500).map((times) => Array.from({ length: times }, () => params).flat()))
    .map((params) => (params.length === 0 ? '' : `?${params.join('&')}`));
  const anyMethod = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'PROPFIND', 'PURGE', 'SEARCH') },
    // Methods Node's parser refuses or handles itself.
    { weight: 1, arbitrary: fc.constantFrom('CONNECT', 'FOO', 'get', 'PATCH ') },
  );
  const unknownTarget = fc.oneof(
    {
      weight: 8,
      arbitrary: fc
        .tuple(
          fc.constantFrom('/activity', '/widget', '/widget/lights', '/events', '/device', '/device/presses', '/openapi.json', '', '/x', '/device/stream/x'),
          fc.array(weirdSegment, { maxLength: 3 }),
        )
        .map(([base, segments]) => prefix + base + segments.map((s) => `/${s}`).join('') || '/'),
    },
    // Other request-target forms: asterisk, absolute, no leading slash. Under a mount
    // prefix (Express), only those that still lie under it: the rest is the host app's.
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        ...[
          '*',
          `http://127.0.0.1${prefix}/events`,
          `http://x${prefix}/widget/lights`,
          `${prefix.slice(1)}events`,
          `//${prefix}/events`,
          `${prefix}/%`,
          `${prefix}\\events`,
        ].filter(
          (target) =>
            prefix === '' || target.startsWith(`${prefix}/`) || target.startsWith(`http://x${prefix}/`) || target.startsWith(`http://127.0.0.1${prefix}/`),
        ),
      ),
    },
  );
  return [
    {
      name: 'PATCH /activity/{slug}',
      cases: build(
        fc.constant('PATCH'),
        path((s) => `/activity/${s}`, activitySlugs),
        [publisherAuth, ...bodyHeaders],
        mutatedBody(activityBody),
      ),
    },
    {
      name: 'PATCH /widget/{slug}',
      cases: build(
        fc.constant('PATCH'),
        path((s) => `/widget/${s}`, widgetSlugs),
        [publisherAuth, ...bodyHeaders],
        mutatedBody(widgetBody),
      ),
    },
    {
      name: 'PUT /widget/{slug}/webhooks',
      cases: build(
        fc.constant('PUT'),
        path((s) => `/widget/${s}/webhooks`, widgetSlugs),
        [publisherAuth, ...bodyHeaders],
        mutatedBody(validWebhookBody),
      ),
    },
    {
      name: 'GET and DELETE /widget/{slug}/webhooks',
      cases: build(
        fc.constantFrom('GET', 'DELETE'),
        path((s) => `/widget/${s}/webhooks`, widgetSlugs),
        [publisherAuth, extraHeaders],
        mutatedBody(validWebhookBody),
      ),
    },
    {
      name: 'GET /events',
      cases: build(
        fc.constant('GET'),
        fc.tuple(eventsQuery, fc.constantFrom('', '', '', '/', '%00')).map(([q, s]) => `${prefix}/events${s}${q}`),
        [publisherAuth, lastEventId, extraHeaders],
        null,
      ),
    },
    {
      name: 'GET /openapi.json',
      cases: build(
        fc.constantFrom('GET', 'GET', 'HEAD', 'POST'),
        fc.tuple(pathSuffix).map(([s]) => `${prefix}/openapi.json${s}`),
        [fc.oneof(publisherAuth, fc.constant<Header[]>([])), extraHeaders],
        null,
      ),
    },
    {
      name: 'POST /device/presses',
      cases: build(
        fc.constant('POST'),
        fc.tuple(pathSuffix).map(([s]) => `${prefix}/device/presses${s}`),
        [deviceAuth, ...bodyHeaders],
        mutatedBody(validPressBody),
      ),
    },
    {
      name: 'GET /device/stream',
      cases: build(
        fc.constant('GET'),
        fc.tuple(pathSuffix).map(([s]) => `${prefix}/device/stream${s}`),
        [deviceAuth, lastEventId, extraHeaders],
        null,
      ),
    },
    {
      name: 'unknown paths and methods',
      cases: build(
        anyMethod,
        unknownTarget,
        [fc.oneof(publisherAuth, deviceAuth), ...bodyHeaders],
        mutatedBody(fc.oneof(activityBody, widgetBody, validPressBody)),
      ),
    },
  ];
}
