import { afterEach, describe, expect, it } from 'vitest';
import { activity, CONNECTION_THREADS, flush, rig, T0, until, widget, type Rig } from './support.js';

const timestampOf = (data: unknown) => (data as { timestamp: number }).timestamp;
const eventOf = (data: unknown) => (data as { event: string }).event;

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

describe.each(CONNECTION_THREADS)(
  'transport-fcm: latest wins wherever a push waits (docs/contract/android-fcm.md#fcm-latest-wins; connections on the %s thread)',
  (connectionThread) => {
    let r: Rig;
    afterEach(() => r?.close());

    it('a newer push takes the place of an older one waiting for a stream: the older one is never sent', async () => {
      r = await rig({ connectionThread, maxConcurrentStreams: 1 });
      r.double.answer({ answer: 'stall' });
      const stalled = r.transport.pushWidget('phone', widget()); // holds the only stream
      await r.double.waitForRequests(1);
      const older = r.transport.pushActivity('phone', activity('update', T0 + 1_000));
      await until(() => Object.values(r.transport.load())[0]?.waiting === 1, 'the update waiting for a stream');
      const newer = r.transport.pushActivity('phone', activity('update', T0 + 2_000));
      expect(await older).toBe('superseded');
      expect(Object.values(r.transport.load())[0]?.waiting).toBe(1);
      r.double.releaseStalled();
      expect(await Promise.all([stalled, newer])).toEqual(['delivered', 'delivered']);
      expect(r.double.received.map((g) => `${eventOf(g.data)} ${timestampOf(g.data)}`)).toEqual([`changed ${T0 / 1000}`, `update ${T0 / 1000 + 2}`]);
      expect(r.transport.counters()).toMatchObject({ sent: 2, superseded: 1, dropped: 0 });
      expect(r.transport.backlog()).toEqual({ queued: 0, working: 0, retrying: 0, keys: 0 });
    });

    it('twenty updates of one activity while FCM stalls hold one push of it; only the latest is sent', async () => {
      r = await rig({ connectionThread, maxConcurrentStreams: 1 });
      r.double.answer({ answer: 'stall' });
      const stalled = r.transport.pushWidget('phone', widget());
      await r.double.waitForRequests(1);
      const updates: Array<Promise<unknown>> = [];
      for (let i = 1; i <= 20; i++) {
        updates.push(r.transport.pushActivity('phone', activity('update', T0 + i * 1_000)));
        await flush();
        // The stalled widget push and the newest update: two keys, whatever the updates.
        expect(r.transport.backlog().keys).toBe(2);
      }
      // What is held comes down to the stalled push and the newest update (with a worker, once
      // the withdrawn requests' answers are back from it).
      const held = () => {
        const { queued, working, retrying } = r.transport.backlog();
        return queued + working + retrying;
      };
      await until(() => held() <= 2, 'the replaced updates settled');
      r.double.releaseStalled();
      const outcomes = await Promise.all(updates);
      expect(outcomes.slice(0, 19)).toEqual(Array(19).fill('superseded'));
      expect(outcomes[19]).toBe('delivered');
      expect(await stalled).toBe('delivered');
      expect(r.double.received.map((g) => `${eventOf(g.data)} ${timestampOf(g.data)}`)).toEqual([`changed ${T0 / 1000}`, `update ${T0 / 1000 + 20}`]);
      expect(r.transport.backlog()).toEqual({ queued: 0, working: 0, retrying: 0, keys: 0 });
    });

    it('a start is not replaced by an update of the same activity', async () => {
      r = await rig({ connectionThread, maxConcurrentStreams: 1 });
      r.double.answer({ answer: 'stall' });
      const stalled = r.transport.pushWidget('phone', widget());
      await r.double.waitForRequests(1);
      const start = r.transport.pushActivity('phone', activity('start', T0 + 1_000));
      await flush();
      const update = r.transport.pushActivity('phone', activity('update', T0 + 2_000));
      r.double.releaseStalled();
      expect(await Promise.all([stalled, start, update])).toEqual(['delivered', 'delivered', 'delivered']);
      expect(r.double.received.map((g) => eventOf(g.data))).toEqual(['changed', 'start', 'update']);
    });
  },
);
