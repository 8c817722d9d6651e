import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EVENT_LIFETIME_MS } from '../../packages/core/src/presses/press-intake.js';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe.each(adapters)('POST /device/presses through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let clock: ManualClock;
  let n = 0;
  const press = (body: Record<string, unknown>, token = f.deviceToken) =>
    request(api, 'POST', '/device/presses', { authorization: `Device ${token}`, body: { owner: 'acme', slug: 'lights', request_id: `r${n++}`, ...body } });
  const events = () => api.storage.readEvents('acme', { after: 0, now: clock.now(), limit: 1000 });

  beforeEach(async () => {
    clock = createManualClock();
    api = await startApi(adapter, { clock });
    f = await seedFixture(api.tilecast);
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
  });
  afterEach(() => api.close());

  it('202 with a UUID event id; the event envelope is exactly as specified', async () => {
    const reply = await press({ action: 'hall', value: true, request_id: 'tap-1' });
    expect(reply.status).toBe(202);
    expect(Object.keys(reply.body)).toEqual(['event_id']);
    expect(reply.body.event_id).toMatch(UUID);
    const [event] = await events();
    expect(event!.position).toBe(1);
    expect(event!.envelope).toEqual({
      id: reply.body.event_id,
      request_id: 'tap-1',
      type: 'widget.action.v1',
      subject: { kind: 'widget', slug: 'lights' },
      occurred_at: new Date(clock.now()).toISOString(),
      expires_at: new Date(clock.now() + EVENT_LIFETIME_MS).toISOString(),
      data: { action: 'hall', kind: 'toggle', value: true },
    });
  });

  it('a ULID, a UUID and 128 characters are accepted request ids', async () => {
    for (const requestId of ['01ARZ3NDEKTSV4RRFFQ69G5FAV', '3f1c9a2e-7b44-4e0b-9a51-2d9c8f1e6a10', `A_z-0${'9'.repeat(123)}`]) {
      expect((await press({ action: 'bell', request_id: requestId })).status, requestId).toBe(202);
    }
    expect((await events()).map((event) => event.envelope.request_id)).toEqual([
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      '3f1c9a2e-7b44-4e0b-9a51-2d9c8f1e6a10',
      `A_z-0${'9'.repeat(123)}`,
    ]);
  });

  it('a button press carries no value', async () => {
    await press({ action: 'bell' });
    const [event] = await events();
    expect(event!.envelope.data).toEqual({ action: 'bell', kind: 'button' });
  });

  it('a retried press returns the same event id and produces no second event, even after the event expired', async () => {
    const first = await press({ action: 'bell', request_id: 'same' });
    const again = await press({ action: 'bell', request_id: 'same' });
    clock.advance(EVENT_LIFETIME_MS + 1);
    const later = await press({ action: 'bell', request_id: 'same' });
    expect(again.status).toBe(202);
    expect(again.body.event_id).toBe(first.body.event_id);
    expect(later.body.event_id).toBe(first.body.event_id);
    expect(await api.storage.lastEventPosition('acme')).toBe(1);
  });

  it('a press whose admission fails gets 500 and leaves nothing behind; its retry is admitted once', async () => {
    const admit = api.storage.admitPress.bind(api.storage);
    let failures = 1;
    api.storage.admitPress = async (admission) => {
      if (failures-- > 0) throw new Error('store unavailable');
      return admit(admission);
    };
    const failed = await press({ action: 'bell', request_id: 'flaky' });
    expect(failed.status).toBe(500);
    expect(failed.body).toEqual({ detail: 'Internal Server Error' });
    expect(await api.storage.lastEventPosition('acme')).toBe(0);
    const retried = await press({ action: 'bell', request_id: 'flaky' });
    expect(retried.status).toBe(202);
    expect((await events()).map((event) => event.id)).toEqual([retried.body.event_id]);
  });

  it('the same request_id on another widget is another press', async () => {
    await api.tilecast.management.createWidget({ account: 'acme', slug: 'panel', template: 'switchboard' });
    await request(api, 'PATCH', '/widget/panel', { token: f.acme, body: { content: switchboardContent() } });
    const a = await press({ action: 'bell', request_id: 'x' });
    const b = await press({ action: 'bell', request_id: 'x', slug: 'panel' });
    expect(a.body.event_id).not.toBe(b.body.event_id);
    expect(await api.storage.lastEventPosition('acme')).toBe(2);
  });

  it('401 without a valid device token; an API token is not a device token', async () => {
    const unauthorized = { detail: 'Could not validate credentials' };
    expect(await request(api, 'POST', '/device/presses', { body: {} })).toMatchObject({ status: 401, body: unauthorized });
    expect(await press({ action: 'bell' }, 'nope')).toMatchObject({ status: 401, body: unauthorized });
    const apiToken = await request(api, 'POST', '/device/presses', { token: f.acme, body: { owner: 'acme', slug: 'lights', request_id: 'r', action: 'bell' } });
    expect(apiToken.status).toBe(401);
  });

  it('404 Widget not found for an unknown widget or one not shown on this device', async () => {
    const notFound = { status: 404, body: { detail: 'Widget not found' } };
    expect(await press({ action: 'bell', slug: 'nope' })).toMatchObject(notFound);
    expect(await press({ action: 'bell', owner: 'other', slug: 'secret-widget' })).toMatchObject(notFound);
    expect(await press({ action: 'bell', slug: 'boiler' }, f.guestToken)).toMatchObject(notFound);
  });

  it('422 for an unknown action, a toggle without value, a button with value, bad types and extra fields', async () => {
    const cases: [Record<string, unknown>, (string | number)[], string][] = [
      [{ action: 'nope' }, ['body', 'action'], 'value_error'],
      [{ action: 'hall' }, ['body', 'value'], 'missing'],
      [{ action: 'bell', value: true }, ['body', 'value'], 'extra_forbidden'],
      [{ action: 'hall', value: 'yes' }, ['body', 'value'], 'bool_type'],
      [{ action: 'bell', extra: 1 }, ['body', 'extra'], 'extra_forbidden'],
      [{ action: 'bell', request_id: '' }, ['body', 'request_id'], 'string_too_short'],
      [{ action: 'bell', request_id: 'x'.repeat(129) }, ['body', 'request_id'], 'string_too_long'],
      // Only A-Z a-z 0-9 _ - (docs/contract/device-api.md#press-request-id): it may be filled into a webhook URL unencoded.
      [{ action: 'bell', request_id: '../admin?x=1&' }, ['body', 'request_id'], 'string_pattern_mismatch'],
      [{ action: 'bell', request_id: 'a.b' }, ['body', 'request_id'], 'string_pattern_mismatch'],
      [{ action: 'bell', request_id: 'a b' }, ['body', 'request_id'], 'string_pattern_mismatch'],
      [{ action: 'bell', request_id: 'evil.example/' }, ['body', 'request_id'], 'string_pattern_mismatch'],
    ];
    for (const [body, loc, type] of cases) {
      const reply = await press(body);
      expect(reply.status, JSON.stringify(body)).toBe(422);
      expect(reply.body.detail[0], JSON.stringify(body)).toMatchObject({ loc, type });
    }
    expect(await api.storage.lastEventPosition('acme')).toBe(0);
  });

  it('per phone and widget: a burst of 8, then 1 per second; a refused press produces no event', async () => {
    for (let i = 0; i < 8; i++) expect((await press({ action: 'bell' })).status).toBe(202);
    expect(await press({ action: 'bell' })).toMatchObject({ status: 429, body: { detail: 'Too many presses' } });
    clock.advance(999);
    expect((await press({ action: 'bell' })).status).toBe(429);
    clock.advance(1);
    expect((await press({ action: 'bell' })).status).toBe(202);
    expect((await press({ action: 'bell' })).status).toBe(429);
    expect(await api.storage.lastEventPosition('acme')).toBe(9);
  });

  it('per owner account: a burst of 20 across phones and widgets, then 1 per second', async () => {
    const m = api.tilecast.management;
    const tokens: string[] = [];
    for (let i = 0; i < 3; i++) tokens.push((await m.registerDevice({ id: `acme-tablet-${i}`, account: 'acme' })).token);
    let accepted = 0;
    for (const token of [f.deviceToken, ...tokens]) for (let i = 0; i < 5; i++) if ((await press({ action: 'bell' }, token)).status === 202) accepted++;
    expect(accepted).toBe(20);
    expect((await press({ action: 'bell' }, f.guestToken)).status).toBe(429);
    clock.advance(1000);
    expect((await press({ action: 'bell' }, f.guestToken)).status).toBe(202);
    expect((await press({ action: 'bell' }, tokens[0])).status).toBe(429);
  });

  it('a retry of an accepted press is answered even when the bucket is empty', async () => {
    const first = await press({ action: 'bell', request_id: 'kept' });
    for (let i = 0; i < 7; i++) await press({ action: 'bell' });
    expect((await press({ action: 'bell' })).status).toBe(429);
    expect(await press({ action: 'bell', request_id: 'kept' })).toMatchObject({ status: 202, body: first.body });
  });

  it('presses from a shared device are delivered to the owner', async () => {
    const reply = await press({ action: 'hall', value: false }, f.guestToken);
    expect(reply.status).toBe(202);
    const [event] = await events();
    expect(event!.envelope).toMatchObject({ id: reply.body.event_id, data: { action: 'hall', kind: 'toggle', value: false } });
    expect(await api.storage.lastEventPosition('other')).toBe(0);
  });

  it('a device that pressed gets the next update at once; others wait for the throttle window', async () => {
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } });
    clock.advance(2_000);
    await api.tilecast.idle();
    api.transport.clear();
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: switchboardContent() } }); // opens a window
    await api.tilecast.idle();
    api.transport.clear();

    await press({ action: 'hall', value: true }, f.guestToken);
    const confirming = switchboardContent();
    (confirming.actions[0] as { on: boolean }).on = true;
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: confirming } });
    await api.tilecast.idle();
    expect(api.transport.pushes.map((p) => p.deviceId)).toEqual(['guest-phone']);
    expect(api.transport.pushes[0]!.push).toMatchObject({ content: { actions: [{ id: 'hall', on: true }, {}] } });

    clock.advance(2_000);
    await api.tilecast.idle();
    expect(api.transport.pushes.map((p) => p.deviceId).sort()).toEqual(['acme-phone', 'guest-phone', 'guest-phone']);
    api.transport.clear();

    // Only the next update skips the throttle: the press note is used up.
    clock.advance(2_000);
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: confirming } });
    await request(api, 'PATCH', '/widget/lights', { token: f.acme, body: { content: confirming } });
    await api.tilecast.idle();
    expect(api.transport.pushes.map((p) => p.deviceId).sort()).toEqual(['acme-phone', 'guest-phone']);
  });
});
