/** docs/contract/limits-and-errors.md#field-error-cap: a field-error array holds at most 64 items, the first ones in document order. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { progressUpdate, seedFixture, switchboardContent, unknownMembers, type Fixture } from '../support/fixtures.js';

describe.each(adapters)('field-error arrays are capped through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  beforeEach(async () => {
    api = await startApi(adapter);
    f = await seedFixture(api.tilecast);
  });
  afterEach(() => api.close());

  it('6,000 unknown keys (59 KB): 64 extra_forbidden errors, the first keys in order; the answer stays small', async () => {
    const bodies: [string, string, string][] = [
      ['PATCH', '/activity/build', `{"state":"ONGOING","content":{"template":"progress","progress":{"value":0.5}},${unknownMembers(6000)}}`],
      ['PATCH', '/widget/lights', `{"content":${JSON.stringify(switchboardContent())},${unknownMembers(6000)}}`],
      ['PUT', '/widget/lights/webhooks', `{"webhooks":{},${unknownMembers(6000)}}`],
    ];
    for (const [method, path, raw] of bodies) {
      expect(Buffer.byteLength(raw)).toBeGreaterThan(58_000);
      const reply = await request(api, method, path, { token: f.acme, raw });
      expect(reply.status, path).toBe(422);
      expect(reply.body.detail, path).toEqual(
        Array.from({ length: 64 }, (_, i) => ({ loc: ['body', `k${i}`], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' })),
      );
      expect(JSON.stringify(reply.body).length, path).toBeLessThan(6_000);
    }
  });

  it('a press with 6,000 unknown keys gets 64 errors', async () => {
    const raw = `{"owner":"acme","slug":"lights","request_id":"r1","action":"bell",${unknownMembers(6000)}}`;
    const reply = await request(api, 'POST', '/device/presses', { authorization: `Device ${f.deviceToken}`, raw });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toHaveLength(64);
    expect(reply.body.detail[63]).toMatchObject({ loc: ['body', 'k63'], type: 'extra_forbidden' });
  });

  it('a nested list far over its bound is one too_long error, not one per item', async () => {
    const segments = Array.from({ length: 6000 }, () => ({ x: 1 }));
    const reply = await request(api, 'PATCH', '/activity/build', {
      token: f.acme,
      body: { ...progressUpdate(), content: { template: 'progress', progress: { value: 0.5, segments } } },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toEqual([
      { loc: ['body', 'content', 'progress', 'segments'], msg: 'List should have at most 4 items after validation', type: 'too_long' },
    ]);
  });

  it('thousands of bad webhook headers: the first 64 in order', async () => {
    const headers = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`h${i}`, 5]));
    const reply = await request(api, 'PUT', '/widget/lights/webhooks', {
      token: f.acme,
      body: { webhooks: { '*': { url: 'https://hooks.example.com/', headers } } },
    });
    expect(reply.status).toBe(422);
    expect(reply.body.detail).toHaveLength(64);
    expect(reply.body.detail.map((error: { loc: unknown[] }) => error.loc)).toEqual(
      Array.from({ length: 64 }, (_, i) => ['body', 'webhooks', '*', 'headers', `h${i}`]),
    );
    expect(reply.body.detail[0]).toMatchObject({ type: 'string_type' });
  });

  it('fewer faults than the cap are all reported', async () => {
    const raw = `{"state":"ONGOING","content":{"template":"progress","progress":{"value":0.5}},${unknownMembers(63)}}`;
    const reply = await request(api, 'PATCH', '/activity/build', { token: f.acme, raw });
    expect(reply.body.detail).toHaveLength(63);
  });
});
