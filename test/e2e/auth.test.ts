import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { progressUpdate, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';

describe.each(adapters)('authentication through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  beforeEach(async () => {
    api = await startApi(adapter);
    f = await seedFixture(api.tilecast);
  });
  afterEach(() => api.close());

  const unauthorized = { detail: 'Could not validate credentials' };

  it.each([
    ['missing header', undefined],
    ['Bearer scheme', 'Bearer TOKEN'],
    ['no value', 'Token'],
    ['empty value', 'Token '],
    ['two spaces', 'Token  TOKEN'],
    // (A trailing space cannot be tested: HTTP parsers strip it from header values.)
    ['non-ASCII space before the token', 'Token  TOKEN'.replace('  ', ' \u00a0')],
    ['tab separator', 'Token\tTOKEN'],
    ['unknown token', 'Token tok_unknown'],
  ])('401 for %s', async (_, header) => {
    const authorization = header?.replace('TOKEN', f.acme);
    const reply = await request(api, 'PATCH', '/activity/build', { authorization, body: progressUpdate() });
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual(unauthorized);
  });

  it('accepts the scheme in any case', async () => {
    for (const scheme of ['token', 'TOKEN', 'ToKeN']) {
      const reply = await request(api, 'PATCH', '/activity/build', { authorization: `${scheme} ${f.acme}`, body: progressUpdate() });
      expect(reply.status).toBe(200);
    }
  });

  it('401 before 404: an unauthenticated request to a slug that does not exist', async () => {
    const reply = await request(api, 'PATCH', '/activity/nope', { body: progressUpdate() });
    expect(reply.status).toBe(401);
    const widget = await request(api, 'PATCH', '/widget/nope', { authorization: 'Token x', body: {} });
    expect(widget.status).toBe(401);
  });

  it('402 for a valid token without subscription, before body validation', async () => {
    for (const path of ['/activity/build', '/widget/lights']) {
      const reply = await request(api, 'PATCH', path, { token: f.unsubscribed, raw: 'not json' });
      expect(reply.status).toBe(402);
      expect(reply.body).toEqual({ detail: 'No active subscription was found' });
    }
  });

  it('a subscription turned on later opens the API at once', async () => {
    await api.tilecast.management.setSubscription('lapsed', 'active');
    await api.tilecast.management.createActivity({ account: 'lapsed', slug: 'a', template: 'generic' });
    const reply = await request(api, 'PATCH', '/activity/a', { token: f.unsubscribed, body: { state: 'IDLE', content: { progress: 0 } } });
    expect(reply.status).toBe(200);
  });

  it('rotating the token stops the old one at once and the new one works', async () => {
    const fresh = await api.tilecast.management.rotateToken('acme');
    expect(fresh).not.toBe(f.acme);
    expect((await request(api, 'PATCH', '/activity/build', { token: f.acme, body: progressUpdate() })).status).toBe(401);
    expect((await request(api, 'PATCH', '/activity/build', { token: fresh, body: progressUpdate() })).status).toBe(200);
  });

  // The instance remembers credentials it has seen; the store (shared by every instance)
  // is changed here directly, as another instance would change it.
  it('a remembered token rotated in the store gets 401 at once, whatever else is wrong with the request', async () => {
    const widget = { content: switchboardContent() };
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: widget })).status).toBe(200);
    expect((await request(api, 'PATCH', '/activity/build', { token: f.acme, body: progressUpdate() })).status).toBe(200);
    await api.storage.setAccountTokenHash('acme', 'f'.repeat(64));
    for (const [path, options] of [
      ['/widget/lights', { body: widget }],
      ['/activity/build', { body: progressUpdate() }],
      ['/widget/lights', { raw: 'not json' }],
      ['/activity/nope', { body: progressUpdate() }],
      ['/widget/lights', { body: { content: { template: 'gauge', value: 'high' } } }],
    ] as const) {
      const reply = await request(api, 'PATCH', path, { token: f.acme, ...options });
      expect(reply, `${path} ${JSON.stringify(options)}`).toMatchObject({ status: 401, body: unauthorized });
    }
  });

  it('a remembered token whose subscription ended gets 402 at once, and 200 again once it is back', async () => {
    const widget = { content: switchboardContent() };
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: widget })).status).toBe(200);
    await api.storage.updateAccount('acme', { subscription: 'none' });
    for (const options of [{ body: widget }, { raw: 'not json' }, { body: { content: { template: 'gauge' } } }]) {
      const reply = await request(api, 'PATCH', '/widget/lights', { token: f.acme, ...options });
      expect(reply).toMatchObject({ status: 402, body: { detail: 'No active subscription was found' } });
    }
    expect((await request(api, 'PATCH', '/activity/build', { token: f.acme, body: progressUpdate() })).status).toBe(402);
    await api.storage.updateAccount('acme', { subscription: 'active' });
    expect((await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: widget })).status).toBe(200);
  });

  it("another account's slug is 404 and its data is untouched", async () => {
    const activity = await request(api, 'PATCH', '/activity/secret', { token: f.acme, body: progressUpdate() });
    expect(activity).toMatchObject({ status: 404, body: { detail: 'Activity not found' } });
    const widget = await request(api, 'PATCH', '/widget/secret-widget', { token: f.acme, body: { content: { template: 'gauge', value: 1 } } });
    expect(widget).toMatchObject({ status: 404, body: { detail: 'Widget not found' } });
    expect((await api.storage.getActivity('other', 'secret'))?.content).toBeNull();
    expect((await api.storage.getWidget('other', 'secret-widget'))?.content).toBeNull();
    const own = await request(api, 'PATCH', '/activity/secret', { token: f.other, body: progressUpdate(0.1) });
    expect(own.status).toBe(200);
  });

  it('generated tokens carry at least 128 bits of randomness', async () => {
    const { token } = await api.tilecast.management.createAccount({ id: 'fresh' });
    const secret = token.slice(token.indexOf('_') + 1);
    expect(Buffer.from(secret, 'base64url').length).toBeGreaterThanOrEqual(16);
  });

  it('/openapi.json needs no authentication', async () => {
    const reply = await request(api, 'GET', '/openapi.json');
    expect(reply.status).toBe(200);
    expect(reply.body.info.version).toBe('0.1.0');
  });

  it('unknown routes are 404 and wrong methods 405', async () => {
    expect((await request(api, 'GET', '/nowhere')).status).toBe(404);
    const reply = await request(api, 'GET', '/activity/build', { token: f.acme });
    expect(reply.status).toBe(405);
    expect(reply.headers.get('allow')).toBe('PATCH');
  });
});
