import { afterEach, describe, expect, it } from 'vitest';
import { activity, flush, rig, T0, until, widget, type Rig } from './support.js';

describe('transport-fcm: newer pushes win', () => {
  let r: Rig;
  afterEach(() => r?.close());

  it('a newer push for the same device and activity makes an older one waiting to retry give way', async () => {
    r = await rig();
    r.double.answer({ answer: { error: 'UNAVAILABLE' } });
    const older = r.transport.pushActivity('phone', activity('update', T0));
    await until(() => r.transport.counters().retried === 1, 'the retry');
    expect(await r.transport.pushActivity('phone', activity('update', T0 + 1_000))).toBe('delivered');
    r.clock.advance(750);
    expect(await older).toBe('superseded');
    expect(r.double.received.map((g) => (g.data as { timestamp: number }).timestamp)).toEqual([T0 / 1000, T0 / 1000 + 1]);
    expect(r.transport.counters()).toMatchObject({ sent: 1, superseded: 1, dropped: 0 });
  });

  it('the same for a widget, and a push for another device or widget does not supersede', async () => {
    r = await rig();
    r.double.answer({ answer: { error: 'INTERNAL' } });
    const older = r.transport.pushWidget('phone', widget());
    await until(() => r.transport.counters().retried === 1, 'the retry');
    await r.transport.pushWidget('other', widget());
    await r.transport.pushWidget('phone', widget({ slug: 'pump' }));
    r.clock.advance(750);
    expect(await older).toBe('delivered');
    await r.transport.pushWidget('phone', widget({ updated_at: new Date(T0 + 5_000).toISOString() }));
    expect(r.transport.counters()).toMatchObject({ sent: 4, superseded: 0 });
  });

  it('an activity push older than one already handed over for that device is not sent', async () => {
    r = await rig();
    expect(await r.transport.pushActivity('phone', activity('update', T0 + 5_000))).toBe('delivered');
    expect(await r.transport.pushActivity('phone', activity('update', T0 + 4_000))).toBe('superseded');
    expect(await r.transport.pushActivity('other', activity('update', T0 + 4_000))).toBe('delivered');
    await flush();
    expect(r.double.received.map((g) => g.registrationToken)).toHaveLength(2);
    expect(r.transport.counters()).toMatchObject({ sent: 2, superseded: 1 });
  });
});
