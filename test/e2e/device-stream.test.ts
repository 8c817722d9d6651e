import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adapters, request, startApi, type ApiServer } from '../support/api-server.js';
import { gaugeContent, progressUpdate, seedFixture, switchboardContent, type Fixture } from '../support/fixtures.js';
import { createManualClock, type ManualClock } from '../support/manual-clock.js';
import { dataOf, openSse, type SseConnection } from '../support/sse-client.js';

describe.each(adapters)('GET /device/stream through %s', (adapter) => {
  let api: ApiServer;
  let f: Fixture;
  let clock: ManualClock;
  const open: SseConnection[] = [];
  const deviceStream = async (token: string) => {
    const connection = await openSse(`${api.url}/device/stream`, { authorization: `Device ${token}` });
    open.push(connection);
    return connection;
  };
  const patch = (path: string, body: unknown) => request(api, 'PATCH', path, { token: f.acme, body });

  beforeEach(async () => {
    clock = createManualClock();
    api = await startApi(adapter, { clock });
    f = await seedFixture(api.tilecast);
  });
  afterEach(async () => {
    for (const connection of open.splice(0)) connection.close();
    await api.close();
  });

  it('401 without a device token', async () => {
    const reply = await openSse(`${api.url}/device/stream`, { authorization: `Token ${f.acme}` });
    expect(reply).toMatchObject({ status: 401, body: { detail: 'Could not validate credentials' } });
  });

  it('opens with retry: 1000 and a snapshot of the widgets with content and the live activities', async () => {
    await patch('/widget/boiler', { content: gaugeContent(40) });
    await patch('/activity/build', progressUpdate(0.25));
    const phone = await deviceStream(f.deviceToken);
    expect((await phone.next()).raw).toBe('retry: 1000');
    const widget = await phone.next((frame) => frame.event === 'widget');
    expect(dataOf(widget)).toEqual({
      owner: 'acme',
      slug: 'boiler',
      content: expect.objectContaining({ template: 'gauge', value: 40 }),
      stale_after: 3600,
      updated_at: new Date(clock.now()).toISOString(),
      privacy: 'visible',
    });
    const activity = await phone.next((frame) => frame.event === 'activity');
    expect(dataOf(activity)).toMatchObject({ owner: 'acme', slug: 'build', phase: 'start', state: 'ONGOING', dismissal_delay_s: 30 });
  });

  it('follows activity phases: start, update, end with the dismissal delay', async () => {
    const phone = await deviceStream(f.deviceToken);
    await phone.next();
    await patch('/activity/build', progressUpdate(0.1));
    await patch('/activity/build', progressUpdate(0.2));
    await patch('/activity/build', progressUpdate(1, 'IDLE'));
    const phases = [];
    for (let i = 0; i < 3; i++) phases.push(dataOf(await phone.next((frame) => frame.event === 'activity')));
    expect(phases.map((p) => [p.phase, p.state, p.dismissal_delay_s])).toEqual([
      ['start', 'ONGOING', 30],
      ['update', 'ONGOING', 30],
      ['end', 'IDLE', 30],
    ]);
    // Exactly the fields of docs/contract/device-api.md#device-stream-activity-event (the APNs-only fields stay out).
    for (const p of phases) expect(Object.keys(p).sort()).toEqual(['content', 'dismissal_delay_s', 'owner', 'phase', 'slug', 'state']);
  });

  it("a shared widget reaches the guest phone; the owner's other widgets do not", async () => {
    const guest = await deviceStream(f.guestToken);
    await guest.next();
    await patch('/widget/boiler', { content: gaugeContent() });
    await patch('/widget/lights', { content: switchboardContent() });
    const frame = await guest.next((frame) => frame.event === 'widget');
    expect(dataOf(frame)).toMatchObject({ owner: 'acme', slug: 'lights' });
    clock.advance(20_000);
    await guest.next((frame) => frame.comment === 'ping');
    expect(guest.frames.filter((frame) => frame.event === 'widget')).toHaveLength(1);
  });

  it('press, then the owner confirms: the pressing phone gets the update at once, inside a throttle window', async () => {
    await patch('/widget/lights', { content: switchboardContent() });
    const guest = await deviceStream(f.guestToken);
    await guest.next((frame) => frame.event === 'widget'); // snapshot
    await patch('/widget/lights', { content: switchboardContent() }); // inside the window: throttled
    const pressed = await request(api, 'POST', '/device/presses', {
      authorization: `Device ${f.guestToken}`,
      body: { owner: 'acme', slug: 'lights', request_id: 'p1', action: 'hall', value: true },
    });
    expect(pressed.status).toBe(202);
    const confirming = switchboardContent();
    (confirming.actions[0] as { on: boolean }).on = true;
    await patch('/widget/lights', { content: confirming });
    const update = await guest.next((frame) => frame.event === 'widget');
    expect(dataOf(update).content.actions[0]).toMatchObject({ id: 'hall', on: true });
  });
});
