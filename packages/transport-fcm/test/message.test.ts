import { afterEach, describe, expect, it } from 'vitest';
import { activity, CONNECTION_THREADS, PROJECT_ID, rig, T0, TOKENS, widget, type Rig } from './support.js';
import { fcmBody } from '../src/request.js';

const seconds = T0 / 1000;

describe.each(CONNECTION_THREADS)('transport-fcm: the message (docs/contract/android-fcm.md#fcm-message) (connection on the %s thread)', (connectionThread) => {
  let r: Rig;
  afterEach(() => r?.close());

  it('an activity start is a high-priority data message carrying the state, content and time', async () => {
    r = await rig({ connectionThread });
    expect(await r.transport.pushActivity('phone', activity('start', T0))).toBe('delivered');
    const [got] = r.double.received;
    expect(got!.path).toBe(`/v1/projects/${PROJECT_ID}/messages:send`);
    expect(got!.body).toEqual({
      message: {
        token: TOKENS.phone,
        data: { tilecast: expect.any(String) },
        android: { collapse_key: 'acme/delivery', priority: 'high', ttl: '3600s' },
      },
    });
    expect(got!.data).toEqual({
      kind: 'activity',
      owner: 'acme',
      slug: 'delivery',
      event: 'start',
      state: 'ONGOING',
      content: { template: 'progress', progress: 0.5 },
      timestamp: seconds,
      dismissal_date: null,
    });
    expect(Object.keys(got!.data as object)).toEqual(['kind', 'owner', 'slug', 'event', 'state', 'content', 'timestamp', 'dismissal_date']);
  });

  it('an update is normal priority unless configured; an end is high and carries its dismissal date', async () => {
    r = await rig({ connectionThread });
    await r.transport.pushActivity('phone', activity('update', T0 + 1_000));
    await r.transport.pushActivity('phone', activity('end', T0 + 2_400, { dismissal_delay_s: 29.5 }));
    expect(r.double.received.map((g) => (g.body as { message: { android: { priority: string } } }).message.android.priority)).toEqual(['normal', 'high']);
    expect(r.double.received.map((g) => g.data)).toMatchObject([
      { event: 'update', state: 'ONGOING', timestamp: seconds + 1, dismissal_date: null },
      { event: 'end', state: 'IDLE', timestamp: seconds + 2, dismissal_date: seconds + 2 + 30 },
    ]);
    await r.close();

    r = await rig({ connectionThread, updatePriority: 'high', widgetPriority: 'high' });
    await r.transport.pushActivity('phone', activity('update', T0));
    await r.transport.pushWidget('phone', widget());
    expect(r.double.received.map((g) => (g.body as { message: { android: { priority: string } } }).message.android.priority)).toEqual(['high', 'high']);
  });

  it('a widget gets "changed" without content, normal priority, collapsed per widget', async () => {
    r = await rig({ connectionThread });
    expect(await r.transport.pushWidget('phone', widget())).toBe('delivered');
    const [got] = r.double.received;
    expect(got!.data).toEqual({ kind: 'widget', owner: 'acme', slug: 'boiler', event: 'changed', state: null, timestamp: seconds, dismissal_date: null });
    expect((got!.body as { message: { android: unknown } }).message.android).toEqual({ collapse_key: 'acme/boiler', priority: 'normal', ttl: '3600s' });
  });

  it('content that would take the message over 4,000 bytes is left out, and counted', async () => {
    r = await rig({ connectionThread });
    const items = Array.from({ length: 40 }, (_, i) => ({ label: `Item ${i}`, value: 'x'.repeat(80) }));
    await r.transport.pushActivity('phone', activity('update', T0, { content: { template: 'generic', items } }));
    // Just under: kept (the data object as FCM counts it, `{"tilecast":"..."}`).
    const fits = { template: 'generic', note: 'y'.repeat(3_700) };
    await r.transport.pushActivity('phone', activity('update', T0 + 1_000, { content: fits }));
    const [large, small] = r.double.received;
    expect(large!.data).toEqual({
      kind: 'activity',
      owner: 'acme',
      slug: 'delivery',
      event: 'update',
      state: 'ONGOING',
      timestamp: seconds,
      dismissal_date: null,
    });
    expect((small!.data as { content: unknown }).content).toEqual(fits);
    for (const got of r.double.received) {
      const data = (got.body as { message: { data: object } }).message.data;
      expect(Buffer.byteLength(JSON.stringify(data))).toBeLessThanOrEqual(4_000);
    }
    expect(r.transport.counters()).toMatchObject({ sent: 2, contentLeftOut: 1 });
  });

  it('every data value is a string, and the same push makes the same message for every device but the token', async () => {
    r = await rig({ connectionThread });
    const push = activity('update', T0);
    await Promise.all([r.transport.pushActivity('phone', push), r.transport.pushActivity('other', push)]);
    const bodies = r.double.received.map((g) => g.body as { message: { token: string; data: Record<string, unknown> } });
    for (const body of bodies) for (const value of Object.values(body.message.data)) expect(typeof value).toBe('string');
    expect(new Set(bodies.map((body) => body.message.token))).toEqual(new Set([TOKENS.phone, TOKENS.other]));
    expect(bodies[0]!.message.data).toEqual(bodies[1]!.message.data);
  });

  it('a device without a registration token is skipped, never sent to', async () => {
    r = await rig({ connectionThread });
    expect(await r.transport.pushWidget('tablet', widget())).toBe('skipped');
    expect(await r.transport.pushActivity('tablet', activity('start', T0))).toBe('skipped');
    expect(r.double.received).toHaveLength(0);
    expect(r.transport.counters()).toMatchObject({ skipped: 2, sent: 0, accessTokens: 0 });
  });
});

describe('transport-fcm: the body as the connection writes it', () => {
  const tail = '"data":{"tilecast":"{}"},"android":{"collapse_key":"acme/boiler","priority":"normal","ttl":"3600s"}}}';

  it('is the bytes JSON.stringify gives the token, whether the token is quoted directly or escaped', () => {
    const tokens = [TOKENS.phone, 'd1:APA91b-_~ !#$[]', 'quote"backslash\\', 'tab\tnewline\n', 'délai', '\u007f', '\ud800 lone surrogate', ''];
    for (const token of tokens) {
      const body = fcmBody({ key: 'k', path: '/p', token, tail });
      expect(body).toBe(`{"message":{"token":${JSON.stringify(token)},${tail}`);
      expect((JSON.parse(body) as { message: { token: string } }).message.token).toBe(token);
    }
  });
});
