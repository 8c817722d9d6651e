import { randomBytes } from 'node:crypto';
import type { Storage } from '@tilecast/core/storage';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { gaugeContent, progressUpdate, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';

const HEX = 'aBcDeF0123456789'.repeat(4); // 64 characters, mixed case
const HEX2 = '0f'.repeat(40);
/** FCM registration tokens as Firebase hands them out: mixed case, `:`, `_` and `-`. */
const FCM = `dQw4w9WgXcQ-AbC_12:APA91b${'Fq7_kZ-'.repeat(20)}`;
const FCM2 = `eRt5y6UiOp_XyZ-34:APA91b${'hB2-Lm_'.repeat(20)}`;

describe.each(adapters)('device sync API through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let clock: ManualClock;
  const device = (method: string, path: string, options: { body?: unknown; raw?: string; contentType?: string | null; token?: string } = {}) =>
    request(api, method, `/device${path}`, { authorization: `Device ${options.token ?? f.deviceToken}`, ...options, token: undefined });

  beforeEach(async () => {
    clock = createManualClock();
    api = await startApi(adapter, { clock });
    f = await seedFixture(api.tilecast);
  });
  afterEach(() => api.close());

  /**
   * Restarts the API on a memory store where another instance's `change`, once given, runs
   * between the next device request's authentication and its write.
   */
  async function restartRacing() {
    const store = createMemoryStorage();
    let change: (() => Promise<unknown>) | null = null;
    const racing: Storage = {
      ...store,
      async findDeviceByTokenHash(tokenHash) {
        const found = await store.findDeviceByTokenHash(tokenHash);
        const pending = change;
        change = null;
        await pending?.();
        return found;
      },
    };
    await api.close();
    api = await startApi(adapter, { clock, storage: racing });
    f = await seedFixture(api.tilecast);
    return { store, changeAfterAuthentication: (next: () => Promise<unknown>) => void (change = next) };
  }

  it('every 401 of the device API challenges with the Device scheme (docs/contract/publisher-api.md#auth-401-challenge)', async () => {
    const refused = [
      await device('PUT', '/push', { body: { environment: 'sandbox' }, token: 'no-such-device' }),
      await device('DELETE', '/fcm', { token: 'no-such-device' }),
      await request(api, 'GET', '/device/widgets', {}),
      await request(api, 'GET', '/device/activities', { authorization: `Token ${f.deviceToken}` }),
    ];
    for (const reply of refused) {
      expect(reply.status).toBe(401);
      expect(reply.body).toEqual({ detail: 'Could not validate credentials' });
      expect(reply.headers.get('www-authenticate')).toBe('Device');
    }
  });

  it('the device scheme in any letter case, one space, then the token (docs/contract/device-api.md#device-auth)', async () => {
    const as = (authorization: string) => request(api, 'GET', '/device/widgets', { authorization });
    for (const accepted of [`device ${f.deviceToken}`, `DEVICE ${f.deviceToken}`]) expect((await as(accepted)).status, accepted).toBe(200);
    for (const refused of [`Device  ${f.deviceToken}`, `Device${f.deviceToken}`, `Token ${f.deviceToken}`]) {
      expect((await as(refused)).status, refused).toBe(401);
    }
  });

  describe('PUT /device/push', () => {
    it('204; tokens stored lower case; an omitted token is kept, null removes it', async () => {
      const put = await device('PUT', '/push', { body: { environment: 'sandbox', push_to_start: HEX, widgets: HEX2 } });
      expect(put.status).toBe(204);
      expect(put.body).toBeNull();
      expect(await api.storage.getApnsRegistration('acme-phone')).toEqual({
        environment: 'sandbox',
        pushToStart: HEX.toLowerCase(),
        widgets: HEX2,
        channels: false,
      });
      expect((await device('PUT', '/push', { body: { environment: 'production', widgets: null } })).status).toBe(204);
      expect(await api.storage.getApnsRegistration('acme-phone')).toEqual({
        environment: 'production',
        pushToStart: HEX.toLowerCase(),
        widgets: null,
        channels: false,
      });
      expect((await device('PUT', '/push', { body: { environment: 'production' } })).status).toBe(204);
      expect((await api.storage.getApnsRegistration('acme-phone'))?.pushToStart).toBe(HEX.toLowerCase());
    });

    it('channels says the app follows broadcast channels; omitted, the stored flag is kept (docs/contract/broadcast-channels.md#broadcast-device-flag)', async () => {
      const flag = async () => (await api.storage.getApnsRegistration('acme-phone'))?.channels;
      expect((await device('PUT', '/push', { body: { environment: 'production', push_to_start: HEX, channels: true } })).status).toBe(204);
      expect(await flag()).toBe(true);
      expect(await api.storage.listChannelFollowers('acme', ['production'])).toEqual(['acme-phone']);
      // Another token, another environment: the flag stays.
      expect((await device('PUT', '/push', { body: { environment: 'sandbox', widgets: HEX2 } })).status).toBe(204);
      expect(await api.storage.getApnsRegistration('acme-phone')).toEqual({
        environment: 'sandbox',
        pushToStart: HEX.toLowerCase(),
        widgets: HEX2,
        channels: true,
      });
      expect((await device('PUT', '/push', { body: { environment: 'sandbox', channels: false } })).status).toBe(204);
      expect(await flag()).toBe(false);
      expect(await api.storage.listChannelFollowers('acme', ['production', 'sandbox'])).toEqual([]);
      // A new registration starts without it.
      expect((await device('DELETE', '/push')).status).toBe(204);
      expect((await device('PUT', '/push', { body: { environment: 'sandbox', channels: true } })).status).toBe(204);
      expect((await device('DELETE', '/push')).status).toBe(204);
      expect((await device('PUT', '/push', { body: { environment: 'sandbox' } })).status).toBe(204);
      expect(await flag()).toBe(false);
    });

    it('422 field errors: environment required and one of two, hex of 16 to 512, no coercion, unknown fields refused', async () => {
      const cases: [unknown, { loc: (string | number)[]; type: string }[]][] = [
        [{}, [{ loc: ['body', 'environment'], type: 'missing' }]],
        [{ environment: 'staging' }, [{ loc: ['body', 'environment'], type: 'enum' }]],
        [{ environment: 'sandbox', widgets: 'xyz'.repeat(8) }, [{ loc: ['body', 'widgets'], type: 'string_pattern_mismatch' }]],
        [{ environment: 'sandbox', widgets: 'ab'.repeat(7) }, [{ loc: ['body', 'widgets'], type: 'string_too_short' }]],
        [{ environment: 'sandbox', push_to_start: 'a'.repeat(513) }, [{ loc: ['body', 'push_to_start'], type: 'string_too_long' }]],
        [{ environment: 'sandbox', push_to_start: 1234567890123456 }, [{ loc: ['body', 'push_to_start'], type: 'string_type' }]],
        [{ environment: 'sandbox', token: HEX }, [{ loc: ['body', 'token'], type: 'extra_forbidden' }]],
        // `channels` is a boolean, not a string, a number or null (docs/contract/broadcast-channels.md#broadcast-device-flag).
        [{ environment: 'sandbox', channels: 'true' }, [{ loc: ['body', 'channels'], type: 'bool_type' }]],
        [{ environment: 'sandbox', channels: 1 }, [{ loc: ['body', 'channels'], type: 'bool_type' }]],
        [{ environment: 'sandbox', channels: null }, [{ loc: ['body', 'channels'], type: 'bool_type' }]],
        [{ environment: 'sandbox', channels: [true] }, [{ loc: ['body', 'channels'], type: 'bool_type' }]],
        [
          { environment: 'staging', channels: 'yes' },
          [
            { loc: ['body', 'environment'], type: 'enum' },
            { loc: ['body', 'channels'], type: 'bool_type' },
          ],
        ],
        [[], [{ loc: ['body'], type: 'dict_type' }]],
      ];
      for (const [body, expected] of cases) {
        const reply = await device('PUT', '/push', { body });
        expect(reply.status, JSON.stringify(body)).toBe(422);
        expect(
          reply.body.detail.map(({ loc, type }: { loc: unknown; type: unknown }) => ({ loc, type })),
          JSON.stringify(body),
        ).toEqual(expected);
      }
      // Nothing of a refused body was stored.
      expect(await api.storage.getApnsRegistration('acme-phone')).toBeNull();
      // 16 and 512 characters are accepted.
      expect((await device('PUT', '/push', { body: { environment: 'sandbox', widgets: 'A'.repeat(16), push_to_start: 'b'.repeat(512) } })).status).toBe(204);
    });

    it('refuses a body as the rest of the device API does: 415, 413, 422 json_invalid, 401 first', async () => {
      expect((await device('PUT', '/push', { raw: '{"environment":"sandbox"}', contentType: 'text/plain' })).status).toBe(415);
      const big = await device('PUT', '/push', { raw: JSON.stringify({ environment: 'sandbox', pad: 'x'.repeat(70_000) }) });
      expect(big.status).toBe(413);
      expect(big.body).toEqual({ detail: 'Request body too large' });
      const bad = await device('PUT', '/push', { raw: '{"environment":' });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].type).toBe('json_invalid');
      const unauthorized = await request(api, 'PUT', '/device/push', { body: { environment: 'sandbox' } });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.body).toEqual({ detail: 'Could not validate credentials' });
      // A publisher token is not a device token.
      expect((await request(api, 'PUT', '/device/push', { authorization: `Device ${f.acme}`, body: { environment: 'sandbox' } })).status).toBe(401);
      expect(await api.storage.getApnsRegistration('acme-phone')).toBeNull();
    });

    it('a NUL or a lone surrogate never reaches the store: 422 string_unicode', async () => {
      const reply = await device('PUT', '/push', { raw: '{"environment":"sandbox","widgets":"\\u0000abcdefabcdefabcdef"}' });
      expect(reply.status).toBe(422);
      expect(reply.body.detail[0].type).toBe('string_unicode');
    });
  });

  it('DELETE /device/push removes every APNs token of the device, update tokens included (204, also again)', async () => {
    await device('PUT', '/push', { body: { environment: 'sandbox', push_to_start: HEX, widgets: HEX2 } });
    await device('PUT', '/activities/acme/build/push', { body: { token: HEX2 } });
    expect((await device('DELETE', '/push')).status).toBe(204);
    expect(await api.storage.getApnsRegistration('acme-phone')).toBeNull();
    expect(await api.storage.getActivityPushToken('acme-phone', 'acme', 'build')).toBeNull();
    expect((await device('DELETE', '/push')).status).toBe(204);
    expect((await request(api, 'DELETE', '/device/push')).status).toBe(401);
  });

  describe('PUT and DELETE /device/fcm (docs/contract/device-api.md#device-fcm-register, docs/contract/device-api.md#device-fcm-remove)', () => {
    it('204; the token stored exactly as sent and replaced by the next; DELETE removes it (204, also again)', async () => {
      const put = await device('PUT', '/fcm', { body: { token: FCM } });
      expect(put.status).toBe(204);
      expect(put.body).toBeNull();
      expect(await api.storage.getFcmToken('acme-phone')).toBe(FCM);
      expect((await device('PUT', '/fcm', { body: { token: FCM2 } })).status).toBe(204);
      expect(await api.storage.getFcmToken('acme-phone')).toBe(FCM2);
      expect(await api.storage.getFcmToken('guest-phone')).toBeNull();
      const removed = await device('DELETE', '/fcm');
      expect(removed.status).toBe(204);
      expect(removed.body).toBeNull();
      expect(await api.storage.getFcmToken('acme-phone')).toBeNull();
      expect((await device('DELETE', '/fcm')).status).toBe(204);
    });

    it('422 field errors: token required, 1 to 4096 of A-Z a-z 0-9 : _ -, no coercion, unknown fields refused', async () => {
      const cases: [unknown, { loc: (string | number)[]; type: string }[]][] = [
        [{}, [{ loc: ['body', 'token'], type: 'missing' }]],
        [{ token: '' }, [{ loc: ['body', 'token'], type: 'string_too_short' }]],
        [{ token: 'a'.repeat(4097) }, [{ loc: ['body', 'token'], type: 'string_too_long' }]],
        [{ token: 'abc def' }, [{ loc: ['body', 'token'], type: 'string_pattern_mismatch' }]],
        [{ token: 'abc/def+ghi=' }, [{ loc: ['body', 'token'], type: 'string_pattern_mismatch' }]],
        [{ token: 'jeton-été' }, [{ loc: ['body', 'token'], type: 'string_pattern_mismatch' }]],
        [{ token: 12345 }, [{ loc: ['body', 'token'], type: 'string_type' }]],
        [{ token: null }, [{ loc: ['body', 'token'], type: 'string_type' }]],
        [{ token: FCM, environment: 'production' }, [{ loc: ['body', 'environment'], type: 'extra_forbidden' }]],
        [[], [{ loc: ['body'], type: 'dict_type' }]],
      ];
      for (const [body, expected] of cases) {
        const reply = await device('PUT', '/fcm', { body });
        expect(reply.status, JSON.stringify(body)).toBe(422);
        expect(
          reply.body.detail.map(({ loc, type }: { loc: unknown; type: unknown }) => ({ loc, type })),
          JSON.stringify(body),
        ).toEqual(expected);
      }
      expect(await api.storage.getFcmToken('acme-phone')).toBeNull();
      // 1 and 4096 characters are accepted, every allowed character among them.
      for (const token of ['x', `${'AZaz09:_-'.repeat(455)}z`]) {
        expect((await device('PUT', '/fcm', { body: { token } })).status, `${token.length} characters`).toBe(204);
        expect(await api.storage.getFcmToken('acme-phone')).toBe(token);
      }
    });

    it('refuses a body as the rest of the device API does: 415, 413, 422 json_invalid and string_unicode, 401 first', async () => {
      expect((await device('PUT', '/fcm', { raw: JSON.stringify({ token: FCM }), contentType: 'text/plain' })).status).toBe(415);
      const big = await device('PUT', '/fcm', { raw: JSON.stringify({ token: FCM, pad: 'x'.repeat(70_000) }) });
      expect(big.status).toBe(413);
      expect(big.body).toEqual({ detail: 'Request body too large' });
      const bad = await device('PUT', '/fcm', { raw: '{"token":' });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].type).toBe('json_invalid');
      const nul = await device('PUT', '/fcm', { raw: '{"token":"abc\\u0000def"}' });
      expect(nul.status).toBe(422);
      expect(nul.body.detail[0].type).toBe('string_unicode');
      for (const [method, body] of [
        ['PUT', { token: FCM }],
        ['DELETE', undefined],
      ] as const) {
        const unauthorized = await request(api, method, '/device/fcm', { body });
        expect(unauthorized.status, method).toBe(401);
        expect(unauthorized.body).toEqual({ detail: 'Could not validate credentials' });
        // A publisher token is not a device token.
        expect((await request(api, method, '/device/fcm', { authorization: `Device ${f.acme}`, body })).status, method).toBe(401);
        expect((await request(api, method, '/device/fcm', { authorization: `Token ${f.acme}`, body })).status, method).toBe(401);
      }
      expect(await api.storage.getFcmToken('acme-phone')).toBeNull();
    });

    it('APNs and FCM tokens are apart: DELETE /device/push keeps the FCM token, DELETE /device/fcm the APNs tokens', async () => {
      await device('PUT', '/push', { body: { environment: 'sandbox', widgets: HEX2 } });
      await device('PUT', '/fcm', { body: { token: FCM } });
      expect((await device('DELETE', '/push')).status).toBe(204);
      expect(await api.storage.getFcmToken('acme-phone')).toBe(FCM);
      await device('PUT', '/push', { body: { environment: 'sandbox', widgets: HEX2 } });
      expect((await device('DELETE', '/fcm')).status).toBe(204);
      expect(await api.storage.getApnsRegistration('acme-phone')).toEqual({ environment: 'sandbox', pushToStart: null, widgets: HEX2, channels: false });
    });
  });

  describe('PUT and DELETE /device/activities/{owner}/{slug}/push', () => {
    it('stores the update token lower case (204); DELETE forgets it (204, also when there is none)', async () => {
      expect((await device('PUT', '/activities/acme/build/push', { body: { token: HEX } })).status).toBe(204);
      expect(await api.storage.getActivityPushToken('acme-phone', 'acme', 'build')).toBe(HEX.toLowerCase());
      expect((await device('DELETE', '/activities/acme/build/push')).status).toBe(204);
      expect(await api.storage.getActivityPushToken('acme-phone', 'acme', 'build')).toBeNull();
      expect((await device('DELETE', '/activities/acme/build/push')).status).toBe(204);
    });

    it('404 Activity not found when the activity does not exist or is not shown on this device', async () => {
      for (const path of ['/activities/acme/nope/push', '/activities/other/secret/push', '/activities/%00/build/push']) {
        const reply = await device('PUT', path, { body: { token: HEX } });
        expect(reply.status, path).toBe(404);
        expect(reply.body).toEqual({ detail: 'Activity not found' });
      }
      // The guest phone (account `other`) does not show acme's activities.
      const guest = await device('PUT', '/activities/acme/build/push', { body: { token: HEX }, token: f.guestToken });
      expect(guest.status).toBe(404);
    });

    it('422 for a body that is not {"token": <hex>}', async () => {
      for (const body of [{}, { token: 'nothex-nothex-nothex' }, { token: HEX, extra: 1 }, { token: null }]) {
        expect((await device('PUT', '/activities/acme/build/push', { body })).status, JSON.stringify(body)).toBe(422);
      }
      expect((await device('PUT', '/activities/acme/build/push', { raw: 'x', contentType: 'text/plain' })).status).toBe(415);
    });
  });

  describe('GET /device/widgets', () => {
    it("every widget shown on the device: its account's (null content before the first publish) and those shared with it", async () => {
      await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
      const published = new Date(clock.now()).toISOString();
      const own = await device('GET', '/widgets');
      expect(own.status).toBe(200);
      expect(own.body.widgets.map((w: { slug: string }) => w.slug)).toEqual(['boiler', 'lights']);
      expect(own.body.widgets[0]).toEqual({
        owner: 'acme',
        slug: 'boiler',
        template: 'gauge',
        content: null,
        stale_after: 3600,
        updated_at: null,
        privacy: 'visible',
      });
      expect(own.body.widgets[1]).toMatchObject({ owner: 'acme', slug: 'lights', template: 'switchboard', updated_at: published });
      expect(Object.keys(own.body.widgets[1])).toEqual(['owner', 'slug', 'template', 'content', 'stale_after', 'updated_at', 'privacy']);
      expect(own.body.widgets[1].content.template).toBe('switchboard');
      const guest = await device('GET', '/widgets', { token: f.guestToken });
      expect(guest.body.widgets.map((w: { owner: string; slug: string }) => `${w.owner}/${w.slug}`)).toEqual(['other/secret-widget', 'acme/lights']);
    });

    it('GET /device/widgets/{owner}/{slug}: one of them, or 404 Widget not found', async () => {
      await request(api, 'PATCH', '/widget/boiler', { token: f.acme, body: { content: gaugeContent(30) } });
      const one = await device('GET', '/widgets/acme/boiler');
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ owner: 'acme', slug: 'boiler', template: 'gauge', content: { value: 30 } });
      expect((await device('GET', '/widgets/acme/lights', { token: f.guestToken })).status).toBe(200);
      for (const [path, token] of [
        ['/widgets/acme/boiler', f.guestToken],
        ['/widgets/other/secret-widget', f.deviceToken],
        ['/widgets/acme/nope', f.deviceToken],
      ] as const) {
        const reply = await device('GET', path, { token });
        expect(reply.status, path).toBe(404);
        expect(reply.body).toEqual({ detail: 'Widget not found' });
      }
      expect((await request(api, 'GET', '/device/widgets/acme/boiler')).status).toBe(401);
    });
  });

  it("GET /device/activities: every live activity of the device's account", async () => {
    await request(api, 'PATCH', '/activity/build', { token: f.acme, body: progressUpdate(0.25) });
    await request(api, 'PATCH', '/activity/deploy', { token: f.acme, body: progressUpdate(0.5) });
    await request(api, 'PATCH', '/activity/deploy', { token: f.acme, body: progressUpdate(1, 'IDLE') });
    const reply = await device('GET', '/activities');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({
      activities: [
        {
          owner: 'acme',
          slug: 'build',
          template: 'progress',
          state: 'ONGOING',
          content: expect.objectContaining({ template: 'progress' }),
          dismissal_delay_s: 30,
          updated_at: new Date(clock.now()).toISOString(),
          channel_id: null,
        },
      ],
    });
    expect((await device('GET', '/activities', { token: f.guestToken })).body).toEqual({ activities: [] });
  });

  it('GET /device/activities: channel_id is the broadcast channel of the environment the device registered, else null (docs/contract/broadcast-channels.md#broadcast-channel-id-sync)', async () => {
    await api.tilecast.management.createActivity({ account: 'acme', slug: 'match', template: 'progress', delivery: 'broadcast' });
    expect((await request(api, 'PATCH', '/activity/build', { token: f.acme, body: progressUpdate(0.25) })).status).toBe(200);
    expect((await request(api, 'PATCH', '/activity/match', { token: f.acme, body: progressUpdate(0.5) })).status).toBe(200);
    const channels = async () => {
      const reply = await device('GET', '/activities');
      expect(reply.status).toBe(200);
      return Object.fromEntries(reply.body.activities.map((activity: { slug: string; channel_id: unknown }) => [activity.slug, activity.channel_id]));
    };
    // The channels the transport stored at start, one per environment; a channel left on
    // an activity delivered per token is never shown.
    expect(await api.storage.setActivityChannel('acme', 'match', 'sandbox', 'sandbox-channel')).toBe(true);
    expect(await api.storage.setActivityChannel('acme', 'build', 'sandbox', 'left-over')).toBe(true);
    // No APNs registration: no environment, no channel.
    expect(await channels()).toEqual({ build: null, match: null });
    await device('PUT', '/push', { body: { environment: 'sandbox', channels: true } });
    expect(await channels()).toEqual({ build: null, match: 'sandbox-channel' });
    // Production has no channel yet.
    await device('PUT', '/push', { body: { environment: 'production' } });
    expect(await channels()).toEqual({ build: null, match: null });
    await api.storage.setActivityChannel('acme', 'match', 'production', 'production-channel');
    expect(await channels()).toEqual({ build: null, match: 'production-channel' });
    // Back to per-token delivery: the channel is stored still, and shown no more.
    await api.tilecast.management.createActivity({ account: 'acme', slug: 'match', template: 'progress', delivery: 'tokens' });
    expect(await channels()).toEqual({ build: null, match: null });
    expect((await device('GET', '/activities', { token: f.guestToken })).body).toEqual({ activities: [] });
  });

  it('a device that is removed or whose token is rotated (registered again) loses its registrations (docs/contract/device-api.md#device-fcm-follows-token)', async () => {
    await device('PUT', '/push', { body: { environment: 'sandbox', widgets: HEX } });
    await device('PUT', '/activities/acme/build/push', { body: { token: HEX2 } });
    await device('PUT', '/fcm', { body: { token: FCM } });
    await api.tilecast.management.registerDevice({ id: 'acme-phone', account: 'acme' });
    expect(await api.storage.getApnsRegistration('acme-phone')).toBeNull();
    expect(await api.storage.getActivityPushToken('acme-phone', 'acme', 'build')).toBeNull();
    expect(await api.storage.getFcmToken('acme-phone')).toBeNull();
    expect((await device('PUT', '/push', { body: { environment: 'sandbox' } })).status).toBe(401); // the old token is gone
    expect((await device('PUT', '/fcm', { body: { token: FCM } })).status).toBe(401);
    expect(await api.storage.getFcmToken('acme-phone')).toBeNull();
  });

  it('a registration in flight while the token is rotated or the device removed is refused (401) and leaves nothing behind', async () => {
    // Another instance changes the device between this request's authentication and its write.
    const { store, changeAfterAuthentication } = await restartRacing();
    const phone = (await store.getDevice('acme-phone'))!;
    const rotate = () => store.upsertDevice({ ...phone, tokenHash: randomBytes(32).toString('hex') });
    const remove = () => store.deleteDevice(phone.id);
    for (const [what, path, body] of [
      [rotate, '/push', { environment: 'sandbox', widgets: HEX }],
      [rotate, '/activities/acme/build/push', { token: HEX2 }],
      [rotate, '/fcm', { token: FCM }],
      [remove, '/push', { environment: 'sandbox', push_to_start: HEX }],
      [remove, '/activities/acme/build/push', { token: HEX2 }],
      [remove, '/fcm', { token: FCM }],
    ] as const) {
      await store.upsertDevice(phone); // the phone as the fixture registered it
      changeAfterAuthentication(what);
      const reply = await device('PUT', path, { body });
      expect(reply.status, `${what.name} ${path}`).toBe(401);
      expect(await store.getApnsRegistration(phone.id)).toBeNull();
      expect(await store.getActivityPushToken(phone.id, 'acme', 'build')).toBeNull();
      expect(await store.getFcmToken(phone.id)).toBeNull();
    }
  });

  it("a removal in flight while the token is rotated is refused (401) and leaves the new app's tokens", async () => {
    // The old app's DELETE authenticates; then the phone's token is rotated and the new app
    // registers, through another instance, before the removal is made.
    const { store, changeAfterAuthentication } = await restartRacing();
    const phone = (await store.getDevice('acme-phone'))!;
    const rotated = { ...phone, tokenHash: randomBytes(32).toString('hex') };
    changeAfterAuthentication(async () => {
      await store.upsertDevice(rotated);
      await store.setApnsRegistration(phone.id, { environment: 'production', widgets: HEX2 });
      await store.setActivityPushToken(phone.id, 'acme', 'build', HEX2);
    });
    const reply = await device('DELETE', '/push');
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ detail: 'Could not validate credentials' });
    expect(await store.getApnsRegistration(phone.id)).toEqual({ environment: 'production', pushToStart: null, widgets: HEX2, channels: false });
    expect(await store.getActivityPushToken(phone.id, 'acme', 'build')).toBe(HEX2);
  });

  it("an FCM removal in flight while the token is rotated is refused (401) and leaves the new app's token", async () => {
    // The old app's DELETE /device/fcm authenticates; then the phone's token is rotated and
    // the new app registers its FCM token, through another instance, before the removal.
    const { store, changeAfterAuthentication } = await restartRacing();
    const phone = (await store.getDevice('acme-phone'))!;
    const rotated = { ...phone, tokenHash: randomBytes(32).toString('hex') };
    changeAfterAuthentication(async () => {
      await store.upsertDevice(rotated);
      await store.setFcmToken(phone.id, FCM2);
    });
    const reply = await device('DELETE', '/fcm');
    expect(reply.status).toBe(401);
    expect(reply.body).toEqual({ detail: 'Could not validate credentials' });
    expect(reply.headers.get('www-authenticate')).toBe('Device');
    expect(await store.getFcmToken(phone.id)).toBe(FCM2);
  });
});
