import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { progressUpdate, seedFixture, type Fixture } from '../support/fixtures.js';

const jsonInvalid = { detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }] };

describe.each(adapters)('request bodies through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  const send = (raw: string, contentType: string | null = 'application/json') => request(api, 'PATCH', '/activity/build', { token: f.acme, raw, contentType });
  beforeEach(async () => {
    api = await startApi(adapter);
    f = await seedFixture(api.tilecast);
  });
  afterEach(() => api.close());

  it('a body that is not JSON is a 422 json_invalid, never a 500, and never echoed', async () => {
    const reply = await send('{"state": "ONGOING", CANARY');
    expect(reply.status).toBe(422);
    expect(reply.body).toEqual(jsonInvalid);
  });

  it('JSON that is not an object is a 422 dict_type, also behind a host parser in strict mode', async () => {
    for (const raw of ['"abc"', '1', 'null', '   true']) {
      const reply = await send(raw);
      expect(reply.status, raw).toBe(422);
      expect(
        reply.body.detail.map(({ loc, type }: { loc: unknown; type: unknown }) => ({ loc, type })),
        raw,
      ).toEqual([{ loc: ['body'], type: 'dict_type' }]);
    }
  });

  it('an empty body is not {}', async () => {
    expect((await send('')).status).toBe(422);
  });

  it('413 over 64 KiB, before validation', async () => {
    const body = JSON.stringify({ ...progressUpdate(), padding: 'x'.repeat(70_000) });
    const reply = await send(body);
    expect(reply.status).toBe(413);
  });

  it('415 for a non-JSON media type; +json and parameters are accepted', async () => {
    const body = JSON.stringify(progressUpdate());
    expect((await send(body, 'text/plain')).body).toEqual({ detail: 'Unsupported Media Type' });
    expect((await send(body, 'text/plain')).status).toBe(415);
    expect((await send(body, 'APPLICATION/JSON; charset=utf-8')).status).toBe(200);
    expect((await send(body, 'application/merge-patch+json')).status).toBe(200);
  });

  it('charset utf8 (no hyphen, any letter case, quoted or not) is UTF-8, also behind a host parser that refuses it', async () => {
    // docs/contract/limits-and-errors.md#body-charset-utf8; express.json() refuses every
    // charset not starting with "utf-", before it reads the body.
    const body = JSON.stringify(progressUpdate());
    for (const type of ['application/json; charset=utf8', 'application/json;charset="UTF8"', 'application/merge-patch+json; charset=Utf8']) {
      const reply = await send(body, type);
      expect(reply.status, type).toBe(200);
    }
    // Still 415 for a charset the contract refuses, and after the credentials.
    expect((await send(body, 'application/json; charset=utf-16')).body).toEqual({ detail: 'Unsupported Media Type' });
    expect((await request(api, 'PATCH', '/activity/build', { token: 'nope', raw: body, contentType: 'application/json; charset=latin1' })).status).toBe(401);
  });

  it('a missing Content-Type is parsed as JSON', async () => {
    // fetch sets text/plain for string bodies, so send bytes, which carry no type.
    const reply = await request(api, 'PATCH', '/activity/build', {
      token: f.acme,
      raw: new TextEncoder().encode(JSON.stringify(progressUpdate())),
      contentType: null,
    });
    expect(reply.status).toBe(200);
  });

  it('__proto__, constructor and prototype are unknown fields, and no prototype is polluted', async () => {
    for (const raw of [
      '{"state":"ONGOING","content":{"progress":{"value":0.5}},"__proto__":{"polluted":1}}',
      '{"state":"ONGOING","content":{"progress":{"value":0.5},"constructor":{"prototype":{"polluted":1}}}}',
      '{"state":"ONGOING","content":{"progress":{"value":0.5,"\\u005f_proto__":{"polluted":1}}}}',
    ]) {
      const reply = await send(raw);
      expect(reply.status, raw).toBe(422);
      expect(reply.body.detail[0].type).toBe('extra_forbidden');
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('duplicate keys: the last one wins', async () => {
    const reply = await send('{"state":"IDLE","state":"ONGOING","content":{"progress":{"value":0.1,"value":0.9}}}');
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ state: 'ONGOING', content: { progress: { value: 0.9 } } });
  });

  it('numbers that are not finite are refused', async () => {
    const reply = await send('{"state":"ONGOING","content":{"progress":{"value":1e400}}}');
    expect(reply.status).toBe(422);
  });

  it('deep nesting is a 422, not a crash', async () => {
    const deep = '['.repeat(20_000) + ']'.repeat(20_000);
    const reply = await send(`{"state":"ONGOING","content":{"progress":{"value":${deep}}}}`);
    expect(reply.status).toBe(422);
  });
});
