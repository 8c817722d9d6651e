import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyWebhook } from '@tilecast/core/verify';
import { adapters, request, startApi, type ApiServer, type Reply } from '../support/api-server.js';
import { createCapturingLogger, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { dataOf, openSse } from '../support/sse-client.js';
import { makeCertificates, startReceiver, type Receiver, type TestCertificates } from '../support/tls-receiver.js';

const SECRET = 'CANARY-secret-7f3a';
const HEADER_VALUE = 'CANARY-header-91bc';
const QUERY_VALUE = 'CANARY-query-4d2e';
const CANARIES = [SECRET, HEADER_VALUE, QUERY_VALUE];

/** Every byte a client could see of a reply. */
function visible(reply: Reply): string {
  return JSON.stringify(reply.body) + JSON.stringify([...reply.headers.entries()]);
}

function expectNoCanary(text: string): void {
  for (const canary of CANARIES) expect(text).not.toContain(canary);
}

const entry = (overrides: Record<string, unknown> = {}) => ({ url: 'https://hooks.example.com/tilecast', ...overrides });

describe.each(adapters)('webhook map endpoints through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let lines: string[];
  const put = (slug: string, body: unknown, token = f.acme) => request(api, 'PUT', `/widget/${slug}/webhooks`, { token, body });
  const get = (slug: string, token = f.acme) => request(api, 'GET', `/widget/${slug}/webhooks`, { token });
  const del = (slug: string, token = f.acme) => request(api, 'DELETE', `/widget/${slug}/webhooks`, { token });

  beforeEach(async () => {
    const capture = createCapturingLogger();
    lines = capture.lines;
    api = await startApi(adapter, { logger: capture.logger });
    f = await seedFixture(api.tilecast);
  });
  afterEach(async () => {
    await api.close();
    expectNoCanary(lines.join('\n'));
  });

  it('PUT answers 200 with the redacted map, defaults applied; GET returns the same; DELETE 204 empties it', async () => {
    const reply = await put('lights', {
      webhooks: {
        hall: {
          url: `https://hooks.example.com/t/{{action}}?token=${QUERY_VALUE}&v={{value}}`,
          method: 'PUT',
          headers: { 'X-Api-Key': HEADER_VALUE },
          body: { on: '{{value}}' },
          secret: SECRET,
        },
        '*': entry(),
      },
    });
    expect(reply.status).toBe(200);
    const expected = {
      webhooks: {
        hall: {
          config: { url: 'https://hooks.example.com/t/{{action}}?token=***&v=***', method: 'PUT', headers: { 'X-Api-Key': '***' }, body: { on: '{{value}}' } },
          last_success_at: null,
          last_failure_at: null,
        },
        '*': { config: { url: 'https://hooks.example.com/tilecast', method: 'POST', headers: {}, body: null }, last_success_at: null, last_failure_at: null },
      },
    };
    expect(reply.body).toEqual(expected);
    expectNoCanary(visible(reply));

    const read = await get('lights');
    expect(read.status).toBe(200);
    expect(read.body).toEqual(expected);
    expectNoCanary(visible(read));

    const removed = await del('lights');
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    expect((await get('lights')).body).toEqual({ webhooks: {} });
  });

  it('PUT replaces the whole map', async () => {
    await put('lights', { webhooks: { hall: entry(), bell: entry() } });
    const reply = await put('lights', { webhooks: { bell: entry({ method: 'GET' }) } });
    expect(Object.keys(reply.body.webhooks)).toEqual(['bell']);
    expect(Object.keys((await get('lights')).body.webhooks)).toEqual(['bell']);
  });

  it('GET shows last_success_at and last_failure_at per entry', async () => {
    await put('lights', { webhooks: { hall: entry(), '*': entry() } });
    await api.storage.recordWebhookOutcome('acme', 'lights', 'hall', { outcome: 'success', at: '2026-11-22T12:00:01.000Z' });
    await api.storage.recordWebhookOutcome('acme', 'lights', 'hall', { outcome: 'failure', at: '2026-11-22T12:00:02.000Z' });
    const { body } = await get('lights');
    expect(body.webhooks.hall).toMatchObject({ last_success_at: '2026-11-22T12:00:01.000Z', last_failure_at: '2026-11-22T12:00:02.000Z' });
    expect(body.webhooks['*']).toMatchObject({ last_success_at: null, last_failure_at: null });
    // PUT reports them in the same shape.
    expect((await put('lights', { webhooks: { hall: entry() } })).body.webhooks.hall.last_success_at).toBe('2026-11-22T12:00:01.000Z');
  });

  it('checks in order: 401, 402, 422 body, 404 Widget not found', async () => {
    for (const method of ['PUT', 'GET', 'DELETE']) {
      const body = method === 'PUT' ? { webhooks: {} } : undefined;
      expect((await request(api, method, '/widget/nope/webhooks', { body })).status, method).toBe(401);
      expect((await request(api, method, '/widget/nope/webhooks', { token: 'wrong', body })).status, method).toBe(401);
      const lapsed = await request(api, method, '/widget/lights/webhooks', { token: f.unsubscribed, body });
      expect([lapsed.status, lapsed.body.detail], method).toEqual([402, 'No active subscription was found']);
      for (const slug of ['nope', 'secret-widget']) {
        const missing = await request(api, method, `/widget/${slug}/webhooks`, { token: f.acme, body });
        expect([missing.status, missing.body.detail], `${method} ${slug}`).toEqual([404, 'Widget not found']);
      }
    }
    expect((await put('nope', { webhooks: 'x' })).status).toBe(422);
    expect((await put('nope', { webhooks: { '*': entry() } })).status).toBe(404);
    const notJson = await request(api, 'PUT', '/widget/lights/webhooks', { token: f.acme, raw: '{"webhooks":' });
    expect(notJson.status).toBe(422);
    expect(notJson.body.detail[0]).toEqual({ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' });
  });

  describe('validation: one accepted and one refused case per rule', () => {
    const refuse = async (body: unknown, loc: (string | number)[], type?: string) => {
      const reply = await put('lights', body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(
        reply.body.detail.map((error: { loc: unknown }) => error.loc),
        JSON.stringify(body),
      ).toContainEqual(loc);
      if (type !== undefined) expect(reply.body.detail.find((e: { loc: unknown }) => JSON.stringify(e.loc) === JSON.stringify(loc)).type).toBe(type);
      for (const item of reply.body.detail) expect(Object.keys(item).sort()).toEqual(['loc', 'msg', 'type']);
      expectNoCanary(visible(reply));
      return reply;
    };
    const accept = async (body: unknown) => {
      const reply = await put('lights', body);
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      return reply;
    };
    const at = (key: string, ...rest: string[]) => ['body', 'webhooks', key, ...rest];

    it('body shape', async () => {
      await refuse({}, ['body', 'webhooks'], 'missing');
      await refuse({ webhooks: [] }, ['body', 'webhooks'], 'dict_type');
      await refuse({ webhooks: {}, extra: 1 }, ['body', 'extra'], 'extra_forbidden');
      await accept({ webhooks: {} });
    });

    it('keys: action ids or *', async () => {
      await accept({ webhooks: { '*': entry(), 'a-Z_0': entry(), ['x'.repeat(32)]: entry() } });
      for (const key of ['a b', 'x'.repeat(33), '**', 'é', '']) await refuse({ webhooks: { [key]: entry() } }, at(key));
    });

    it('at most 9 entries', async () => {
      const map = (n: number) => ({ webhooks: Object.fromEntries(Array.from({ length: n }, (_, i) => [i === 0 ? '*' : `a${i}`, entry()])) });
      await accept(map(9));
      await refuse(map(10), ['body', 'webhooks'], 'too_long');
    });

    it('url: required https, port 443 only, no credentials, public host, known placeholders', async () => {
      await accept({
        webhooks: {
          '*': entry({ url: 'https://hooks.example.com:443/{{slug}}/{{action}}?e={{event_id}}&r={{request_id}}&k={{kind}}&s={{subject}}&j={{event_json}}' }),
        },
      });
      await refuse({ webhooks: { '*': {} } }, at('*', 'url'), 'missing');
      const bad: [string, string][] = [
        [`http://hooks.example.com/?t=${QUERY_VALUE}`, 'url_scheme'],
        [`https://hooks.example.com:8443/?t=${QUERY_VALUE}`, 'value_error'],
        [`https://user:${QUERY_VALUE}@hooks.example.com/`, 'value_error'],
        [`https://127.0.0.1/?t=${QUERY_VALUE}`, 'value_error'],
        [`https://localhost/?t=${QUERY_VALUE}`, 'value_error'],
        [`https://[::ffff:10.0.0.1]/?t=${QUERY_VALUE}`, 'value_error'],
        [`https://hooks.example.com/?t={{${QUERY_VALUE}}}`, 'value_error'],
        [`https://hooks.example.com/?t=${'x'.repeat(2048)}`, 'string_too_long'],
        [`https://exa mple.com/?t=${QUERY_VALUE}`, 'url_parsing'],
      ];
      for (const [url, type] of bad) await refuse({ webhooks: { '*': entry({ url }) } }, at('*', 'url'), type);
      await refuse({ webhooks: { '*': entry({ url: 42 }) } }, at('*', 'url'), 'string_type');
    });

    it('method: POST, PUT, PATCH or GET (default POST)', async () => {
      for (const method of ['POST', 'PUT', 'PATCH', 'GET'])
        expect((await accept({ webhooks: { '*': entry({ method }) } })).body.webhooks['*'].config.method).toBe(method);
      expect((await accept({ webhooks: { '*': entry({ method: null }) } })).body.webhooks['*'].config.method).toBe('POST');
      for (const method of ['DELETE', 'post', 1]) await refuse({ webhooks: { '*': entry({ method }) } }, at('*', 'method'));
    });

    it('headers: refused names in any case, token names, no CR/LF/control characters, 1 KiB in total', async () => {
      await accept({ webhooks: { '*': entry({ headers: { Authorization: `Bearer ${HEADER_VALUE}`, 'X-Custom': 'a\tb', 'Content-Type': 'text/plain' } }) } });
      const refused = [
        'Host',
        'host',
        'HOST',
        'Content-Length',
        'connection',
        'Transfer-Encoding',
        'upgrade',
        'te',
        'TE',
        'Trailer',
        'Proxy-Authorization',
        'x-svc-signature',
        'X-SVC-anything',
        'X-Svc-Timestamp',
      ];
      for (const name of refused) await refuse({ webhooks: { '*': entry({ headers: { [name]: HEADER_VALUE } }) } }, at('*', 'headers', name), 'value_error');
      for (const name of ['Bad Name', 'x:y', 'é', ''])
        await refuse({ webhooks: { '*': entry({ headers: { [name]: HEADER_VALUE } }) } }, at('*', 'headers', name), 'value_error');
      for (const value of [`${HEADER_VALUE}\r\nX-Injected: 1`, `${HEADER_VALUE}\n`, `${HEADER_VALUE}\r`, `${HEADER_VALUE}\u0001`, `${HEADER_VALUE}\u0100`]) {
        await refuse({ webhooks: { '*': entry({ headers: { 'X-Api-Key': value } }) } }, at('*', 'headers', 'X-Api-Key'), 'value_error');
      }
      await refuse({ webhooks: { '*': entry({ headers: { 'X-A': HEADER_VALUE, 'x-a': HEADER_VALUE } }) } }, at('*', 'headers', 'x-a'), 'value_error');
      await refuse({ webhooks: { '*': entry({ headers: { 'X-A': 1 } }) } }, at('*', 'headers', 'X-A'), 'string_type');
      await refuse({ webhooks: { '*': entry({ headers: ['X-A'] }) } }, at('*', 'headers'), 'dict_type');
      // 1 KiB: names and values together.
      await accept({ webhooks: { '*': entry({ headers: { 'X-A': 'v'.repeat(1021) } }) } });
      await refuse(
        { webhooks: { '*': entry({ headers: { 'X-A': HEADER_VALUE + 'v'.repeat(1022 - HEADER_VALUE.length) } }) } },
        at('*', 'headers'),
        'value_error',
      );
    });

    it('body: any JSON up to 2 KiB, known placeholders only; omitted or null sends the envelope', async () => {
      for (const body of [{ a: ['{{value}}', 1, true, null] }, ['{{event_json}}'], 'text {{action}}', 7, false]) {
        expect((await accept({ webhooks: { '*': entry({ body }) } })).body.webhooks['*'].config.body).toEqual(body);
      }
      expect((await accept({ webhooks: { '*': entry({ body: null }) } })).body.webhooks['*'].config.body).toBeNull();
      await accept({ webhooks: { '*': entry({ body: 'x'.repeat(2046) }) } }); // 2048 bytes with quotes
      await refuse({ webhooks: { '*': entry({ body: 'x'.repeat(2047) }) } }, at('*', 'body'), 'value_error');
      await refuse({ webhooks: { '*': entry({ body: { a: '{{secret}}' } }) } }, at('*', 'body'), 'value_error');
    });

    it('secret: a non-empty string, never echoed', async () => {
      const reply = await accept({ webhooks: { '*': entry({ secret: SECRET }) } });
      expect(reply.body.webhooks['*'].config).not.toHaveProperty('secret');
      await refuse({ webhooks: { '*': entry({ secret: '' }) } }, at('*', 'secret'), 'string_too_short');
      await refuse({ webhooks: { '*': entry({ secret: SECRET.repeat(20) }) } }, at('*', 'secret'), 'string_too_long');
      await refuse({ webhooks: { '*': entry({ secret: 5 }) } }, at('*', 'secret'), 'string_type');
    });

    it('unknown entry fields are refused', async () => {
      await refuse({ webhooks: { '*': entry({ secrets: SECRET }) } }, at('*', 'secrets'), 'extra_forbidden');
    });

    it('no 422 echoes a secret, header value or query value, even in a body that is not JSON', async () => {
      const raw = `{"webhooks":{"*":{"url":"https://h.example/?t=${QUERY_VALUE}","secret":"${SECRET}","headers":{"X":"${HEADER_VALUE}"`;
      const reply = await request(api, 'PUT', '/widget/lights/webhooks', { token: f.acme, raw });
      expect(reply.status).toBe(422);
      expectNoCanary(visible(reply));
    });
  });
});

describe('private networks (TILECAST_WEBHOOK_ALLOW_PRIVATE underneath)', () => {
  it('off by default; when on, https://localhost/ is accepted and a warning is logged', async () => {
    const strict = await startApi('node-http');
    const capture = createCapturingLogger();
    const relaxed = await startApi('node-http', { logger: capture.logger, webhooks: { allowPrivateNetworks: true } });
    try {
      const fs = await seedFixture(strict.tilecast);
      const fr = await seedFixture(relaxed.tilecast);
      const body = { webhooks: { '*': { url: 'https://localhost/hook' } } };
      expect((await request(strict, 'PUT', '/widget/lights/webhooks', { token: fs.acme, body })).status).toBe(422);
      expect((await request(relaxed, 'PUT', '/widget/lights/webhooks', { token: fr.acme, body })).status).toBe(200);
      expect(
        (await request(relaxed, 'PUT', '/widget/lights/webhooks', { token: fr.acme, body: { webhooks: { '*': { url: 'https://localhost:8443/' } } } })).status,
      ).toBe(422);
      expect(capture.lines.some((line) => line.startsWith('warn') && line.includes('private'))).toBe(true);
    } finally {
      await strict.close();
      await relaxed.close();
    }
  });
});

describe.each(adapters)('a press reaches both channels through %s', (adapter) => {
  let certificates: TestCertificates;
  let receiver: Receiver;
  let api: ApiServer;
  let f: Fixture;
  beforeAll(() => {
    certificates = makeCertificates();
  });
  beforeEach(async () => {
    receiver = await startReceiver(certificates);
    // Test deployment: private targets allowed, the test CA trusted, and the receiver's port dialled instead of 443.
    api = await startApi(adapter, { webhooks: { allowPrivateNetworks: true, ca: certificates.ca, unsafeTestOnlyDial: { port: receiver.port } } });
    f = await seedFixture(api.tilecast);
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
    await request(api, 'PUT', '/widget/lights/webhooks', { token: f.acme, body: { webhooks: { '*': { url: 'https://localhost/hook', secret: SECRET } } } });
  });
  afterEach(async () => {
    await api.close();
    await receiver.close();
  });

  const press = (requestId: string) =>
    request(api, 'POST', '/device/presses', {
      authorization: `Device ${f.deviceToken}`,
      body: { owner: 'acme', slug: 'lights', request_id: requestId, action: 'hall', value: true },
    });

  it('the event stream and the webhook each receive the press once, with the same envelope', async () => {
    const stream = await openSse(`${api.url}/events`, { authorization: `Token ${f.acme}` });
    try {
      const accepted = await press('tap-both');
      expect(accepted.status).toBe(202);
      const frame = await stream.next((candidate) => candidate.data !== undefined);
      const envelope = dataOf(frame);
      expect(envelope.id).toBe(accepted.body.event_id);
      await api.tilecast.idle();
      expect(receiver.requests).toHaveLength(1);
      const [delivered] = receiver.requests;
      expect(JSON.parse(delivered!.body)).toEqual(envelope);
      await expect(
        verifyWebhook({ secret: SECRET, headers: delivered!.headers, method: 'POST', url: delivered!.url, body: delivered!.body }),
      ).resolves.toMatchObject({ eventId: envelope.id });
      // A retried press from the phone is not delivered again.
      await press('tap-both');
      await api.tilecast.idle();
      expect(receiver.requests).toHaveLength(1);
      expect((await request(api, 'GET', '/widget/lights/webhooks', { token: f.acme })).body.webhooks['*'].last_success_at).not.toBeNull();
    } finally {
      stream.close();
    }
  });

  it('a request_id cannot steer the URL it is filled into: refused with a 422, nothing delivered', async () => {
    const put = await request(api, 'PUT', '/widget/lights/webhooks', {
      token: f.acme,
      body: { webhooks: { '*': { url: 'https://localhost/presses/{{request_id}}' } } },
    });
    expect(put.status).toBe(200);
    for (const requestId of ['../admin?x=1&', '..', 'x/../../admin', 'a.b', 'x#frag', 'u:p@evil', '%2e%2e']) {
      const refused = await press(requestId);
      expect(refused.status, requestId).toBe(422);
      expect(refused.body.detail[0], requestId).toMatchObject({ loc: ['body', 'request_id'], type: 'string_pattern_mismatch' });
    }
    await api.tilecast.idle();
    expect(receiver.requests).toHaveLength(0);
    expect((await press('01ARZ3NDEKTSV4RRFFQ69G5FAV')).status).toBe(202);
    await api.tilecast.idle();
    expect(receiver.requests.map((delivered) => new URL(delivered.url).pathname)).toEqual(['/presses/01ARZ3NDEKTSV4RRFFQ69G5FAV']);
  });

  it('entries and header names __proto__, constructor and prototype are kept: GET shows them, presses reach their own entry', async () => {
    const content = {
      template: 'switchboard',
      actions: [
        { id: 'constructor', label: 'C' },
        { id: '__proto__', label: 'P' },
        { id: 'prototype', label: 'T' },
      ],
    };
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content } })).status).toBe(200);
    const map =
      '{"webhooks":{"constructor":{"url":"https://localhost/constructor","headers":{"__proto__":"proto-header","constructor":"ctor-header","prototype":"type-header"}},' +
      '"__proto__":{"url":"https://localhost/proto","headers":{"X-Kind":"proto"}},"*":{"url":"https://localhost/any"}}}';
    const put = await request(api, 'PUT', '/widget/lights/webhooks', { token: f.acme, raw: map });
    expect(put.status).toBe(200);
    const entry = (url: string, headers: string) =>
      `{"config":{"url":"${url}","method":"POST","headers":${headers},"body":null},"last_success_at":null,"last_failure_at":null}`;
    const expected =
      `{"webhooks":{"constructor":${entry('https://localhost/constructor', '{"__proto__":"***","constructor":"***","prototype":"***"}')},` +
      `"__proto__":${entry('https://localhost/proto', '{"X-Kind":"***"}')},"*":${entry('https://localhost/any', '{}')}}}`;
    expect(JSON.stringify(put.body)).toBe(expected);
    expect(JSON.stringify((await request(api, 'GET', '/widget/lights/webhooks', { token: f.acme })).body)).toBe(expected);

    const pressOn = (action: string) =>
      request(api, 'POST', '/device/presses', {
        authorization: `Device ${f.deviceToken}`,
        body: { owner: 'acme', slug: 'lights', request_id: `tap-${action}`, action },
      });
    for (const action of ['constructor', '__proto__', 'prototype']) {
      expect((await pressOn(action)).status, action).toBe(202);
      await api.tilecast.idle();
    }
    expect(receiver.requests.map((delivered) => new URL(delivered.url).pathname)).toEqual(['/constructor', '/proto', '/any']);
    const headerPairs = (raw: string[]) => Array.from({ length: raw.length / 2 }, (_, i) => [raw[2 * i]!, raw[2 * i + 1]!]);
    expect(headerPairs(receiver.requests[0]!.rawHeaders)).toEqual(
      expect.arrayContaining([
        ['__proto__', 'proto-header'],
        ['constructor', 'ctor-header'],
        ['prototype', 'type-header'],
      ]),
    );
    expect(headerPairs(receiver.requests[1]!.rawHeaders)).toEqual(expect.arrayContaining([['X-Kind', 'proto']]));
    const outcomes = (await request(api, 'GET', '/widget/lights/webhooks', { token: f.acme })).body.webhooks;
    for (const key of ['constructor', '__proto__', '*']) expect(Object.getOwnPropertyDescriptor(outcomes, key)?.value.last_success_at, key).not.toBeNull();
  });

  it('a receiver that does not answer delays neither the press nor the stream', async () => {
    receiver.script(() => {}); // never answers
    const stream = await openSse(`${api.url}/events`, { authorization: `Token ${f.acme}` });
    try {
      const accepted = await press('tap-slow');
      expect(accepted.status).toBe(202);
      expect(dataOf(await stream.next((candidate) => candidate.data !== undefined)).id).toBe(accepted.body.event_id);
      expect((await request(api, 'GET', '/widget/lights/webhooks', { token: f.acme })).status).toBe(200);
      expect((await request(api, 'GET', '/widget/lights/webhooks', { token: f.acme })).body.webhooks['*'].last_failure_at).toBeNull(); // still in flight
    } finally {
      stream.close();
    }
  });
});
