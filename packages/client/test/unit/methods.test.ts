import { describe, expect, it } from 'vitest';
import { createClient, isTilecastApiError, TilecastApiError } from '../../src/index.js';
import { json, scriptedFetch } from '../support/fake.js';

const webhookMap = {
  webhooks: {
    hall: {
      config: { url: 'https://example.com/hook?key=***', method: 'POST', headers: { authorization: '***' }, body: null },
      last_success_at: null,
      last_failure_at: null,
    },
  },
};

function setup(...responses: Response[]) {
  const { fetch, requests } = scriptedFetch(responses.map((response) => () => response));
  return { client: createClient({ baseUrl: 'https://tilecast.example/api/', token: 'tok', fetch }), requests };
}

describe('widget(slug).webhooks', () => {
  it('put sends the whole map and returns the redacted map', async () => {
    const { client, requests } = setup(json(200, webhookMap));
    const body = { webhooks: { hall: { url: 'https://example.com/hook?key=s3cret', headers: { authorization: 'Bearer x' }, secret: 'shh' } } };
    expect(await client.widget('lights').webhooks.put(body)).toEqual(webhookMap);
    expect(requests[0]).toMatchObject({ url: 'https://tilecast.example/api/widget/lights/webhooks', method: 'PUT', body: JSON.stringify(body) });
    expect(requests[0]!.headers).toMatchObject({ authorization: 'Token tok', 'content-type': 'application/json' });
  });

  it('get reads the map with its delivery timestamps', async () => {
    const delivered = { webhooks: { '*': { ...webhookMap.webhooks.hall, last_success_at: '2025-06-01T12:00:00Z' } } };
    const { client, requests } = setup(json(200, delivered));
    expect(await client.widget('lights').webhooks.get()).toEqual(delivered);
    expect(requests[0]).toMatchObject({ method: 'GET', body: undefined });
    expect(requests[0]!.headers['content-type']).toBeUndefined();
  });

  it('delete resolves to undefined on 204', async () => {
    const { client, requests } = setup(new Response(null, { status: 204 }));
    expect(await client.widget('lights').webhooks.delete()).toBeUndefined();
    expect(requests[0]).toMatchObject({ method: 'DELETE', url: 'https://tilecast.example/api/widget/lights/webhooks' });
  });

  it('refusals are TilecastApiErrors with the field errors', async () => {
    const detail = [{ loc: ['body', 'webhooks', 'hall', 'url'], msg: 'must start with https://', type: 'value_error' }];
    const { client } = setup(json(422, { detail }), json(404, { detail: 'Widget not found' }));
    const invalid = await client
      .widget('lights')
      .webhooks.put({ webhooks: { hall: { url: 'http://x' } } })
      .catch((e: unknown) => e);
    expect(isTilecastApiError(invalid) && invalid.status === 422 && invalid.fieldErrors).toEqual(detail);
    expect(
      await client
        .widget('nope')
        .webhooks.get()
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 404, detail: 'Widget not found', fieldErrors: [] });
  });
});

describe('requests', () => {
  it('puts the slug in one path segment', async () => {
    const { client, requests } = setup(json(200, { state: 'IDLE', content: {} }));
    await client.activity('a/b c').update({ state: 'IDLE', content: { template: 'generic', progress: 1 } });
    expect(requests[0]!.url).toBe('https://tilecast.example/api/activity/a%2Fb%20c');
  });

  it('keeps a body that is not the usual JSON as a string detail', async () => {
    const { client } = setup(new Response('<h1>Bad gateway</h1>', { status: 502 }), new Response('', { status: 500, statusText: 'Internal Server Error' }));
    const gateway = await client
      .widget('w')
      .update({ content: { template: 'gauge', value: 1 } })
      .catch((e: unknown) => e);
    expect(gateway).toBeInstanceOf(TilecastApiError);
    expect(gateway).toMatchObject({ status: 502, detail: '<h1>Bad gateway</h1>', message: 'PATCH /widget/w → 502: <h1>Bad gateway</h1>' });
    expect(
      await client
        .widget('w')
        .update({ content: { template: 'gauge', value: 1 } })
        .catch((e: unknown) => e),
    ).toMatchObject({ status: 500, detail: 'Internal Server Error' });
  });
});
