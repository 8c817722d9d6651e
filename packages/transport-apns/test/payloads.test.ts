import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTION_THREADS, activity, BUNDLE_ID, KEY_ID, rig, T0, TEAM_ID, TOKENS, widget, type Rig } from './support.js';

describe.each(CONNECTION_THREADS)(
  'transport-apns: push types, topics, headers and payloads (docs/contract/apns.md#apns-pushes) (connections on the %s thread)',
  (connectionThread) => {
    let r: Rig;
    afterEach(() => r?.close());

    it('a start goes to the push-to-start token as a signed liveactivity push', async () => {
      r = await rig({ connectionThread });
      await r.transport.pushActivity('phone', activity('start', T0 + 1500));
      expect(r.double.received).toHaveLength(1);
      const [got] = r.double.received;
      expect(got).toMatchObject({ method: 'POST', path: `/3/device/${TOKENS.start}`, status: 200, reason: null });
      expect(got!.headers).toEqual({
        'apns-push-type': 'liveactivity',
        'apns-topic': `${BUNDLE_ID}.push-type.liveactivity`,
        'apns-priority': '10',
        'apns-expiration': String(T0 / 1000 + 3600),
      });
      expect(got!.jwt).toEqual({ header: { alg: 'ES256', kid: KEY_ID }, claims: { iss: TEAM_ID, iat: T0 / 1000 } });
      expect(got!.payload).toEqual({
        aps: {
          timestamp: T0 / 1000 + 1,
          event: 'start',
          'content-state': { state: 'ONGOING', content: { template: 'progress', progress: 0.5 } },
          'attributes-type': 'TilecastActivityAttributes',
          attributes: { owner: 'acme', slug: 'build', template: 'progress' },
          alert: { title: 'build', body: '' },
          'input-push-token': 1,
        },
      });
      expect(r.transport.counters()).toMatchObject({ sent: 1, retried: 0, dropped: 0, tokensRemoved: 0, skipped: 0 });
    });

    it('the attributes-type is an option', async () => {
      r = await rig({ connectionThread, attributesType: 'BuildAttributes' });
      await r.transport.pushActivity('phone', activity('start', T0));
      expect((r.double.received[0]!.payload as { aps: Record<string, unknown> }).aps['attributes-type']).toBe('BuildAttributes');
    });

    it("an update goes to the activity's update token with the updatePriority option", async () => {
      r = await rig({ connectionThread, updatePriority: 5 });
      await r.transport.pushActivity('phone', activity('update', T0 + 2000));
      const [got] = r.double.received;
      expect(got).toMatchObject({ path: `/3/device/${TOKENS.update}`, status: 200 });
      expect(got!.headers['apns-priority']).toBe('5');
      expect(got!.headers['apns-topic']).toBe(`${BUNDLE_ID}.push-type.liveactivity`);
      expect(got!.payload).toEqual({
        aps: { timestamp: T0 / 1000 + 2, event: 'update', 'content-state': { state: 'ONGOING', content: { template: 'progress', progress: 0.5 } } },
      });
    });

    it('updatePriority defaults to 10', async () => {
      r = await rig({ connectionThread });
      await r.transport.pushActivity('phone', activity('update', T0));
      expect(r.double.received[0]!.headers['apns-priority']).toBe('10');
    });

    it('an end adds the dismissal date, has priority 10, then forgets the update token', async () => {
      r = await rig({ connectionThread, updatePriority: 5 });
      await r.transport.pushActivity('phone', activity('end', T0 + 3000, { dismissal_delay_s: 30 }));
      const [got] = r.double.received;
      expect(got!.headers['apns-priority']).toBe('10');
      expect(got!.payload).toEqual({
        aps: {
          timestamp: T0 / 1000 + 3,
          event: 'end',
          'content-state': { state: 'IDLE', content: { template: 'progress', progress: 0.5 } },
          'dismissal-date': T0 / 1000 + 3 + 30,
        },
      });
      expect(await r.registry.activityTokenOf('phone', 'acme', 'build')).toBeNull();
      await r.transport.pushActivity('phone', activity('update', T0 + 4000));
      expect(r.double.received).toHaveLength(1);
      expect(r.transport.counters()).toMatchObject({ sent: 1, skipped: 1 });
    });

    it('an end forgets only the token it was sent to', async () => {
      r = await rig({ connectionThread });
      r.double.answer({ answer: 'stall' });
      const sending = r.transport.pushActivity('phone', activity('end', T0));
      await r.double.waitForRequests(1);
      r.registry.setActivityToken('phone', 'acme', 'build', 'ab'.repeat(32));
      r.double.releaseStalled();
      await sending;
      expect(await r.registry.activityTokenOf('phone', 'acme', 'build')).toBe('ab'.repeat(32));
    });

    it('a widget push is {"aps":{"content-changed":true}} to the widgets token', async () => {
      r = await rig({ connectionThread });
      await r.transport.pushWidget('phone', widget());
      const [got] = r.double.received;
      expect(got).toMatchObject({ path: `/3/device/${TOKENS.widgets}`, status: 200 });
      expect(got!.headers).toEqual({
        'apns-push-type': 'widgets',
        'apns-topic': `${BUNDLE_ID}.push-type.widgets`,
        'apns-expiration': String(T0 / 1000 + 3600),
      });
      expect(got!.payload).toEqual({ aps: { 'content-changed': true } });
    });

    it('a device without the token it needs is skipped, never sent to', async () => {
      r = await rig({ connectionThread });
      r.registry.register('bare', { environment: 'sandbox' });
      await r.transport.pushActivity('bare', activity('start', T0));
      await r.transport.pushWidget('bare', widget());
      await r.transport.pushActivity('other', activity('update', T0)); // no update token
      await r.transport.pushActivity('nobody', activity('start', T0)); // no registration
      await r.transport.pushWidget('nobody', widget());
      expect(r.double.received).toHaveLength(0);
      expect(r.transport.counters()).toMatchObject({ sent: 0, skipped: 5 });
    });

    it('one connection is reused for every push to an origin', async () => {
      r = await rig({ connectionThread });
      await Promise.all([
        r.transport.pushActivity('phone', activity('start', T0)),
        r.transport.pushWidget('phone', widget()),
        r.transport.pushWidget('other', widget()),
      ]);
      await r.transport.pushActivity('phone', activity('update', T0 + 1000));
      expect(r.double.received.map((g) => g.status)).toEqual([200, 200, 200, 200]);
      expect(r.double.stats().connections).toBe(1);
      expect(r.transport.counters()).toMatchObject({ sent: 4, reconnects: 0 });
    });
  },
);

describe.each(CONNECTION_THREADS)('transport-apns: timestamps never go backwards for one activity (connections on the %s thread)', (connectionThread) => {
  let r: Rig;
  afterEach(() => r?.close());

  it("T is the update's time in whole seconds; an older push than one already sent is not sent", async () => {
    r = await rig({ connectionThread });
    await r.transport.pushActivity('phone', activity('update', T0 + 5_900));
    await r.transport.pushActivity('phone', activity('update', T0 + 5_100)); // older than the last
    await r.transport.pushActivity('phone', activity('update', T0 + 5_950)); // same second: kept
    await r.transport.pushActivity('phone', activity('update', T0 + 7_000));
    const stamps = r.double.received.map((g) => (g.payload as { aps: { timestamp: number } }).aps.timestamp);
    expect(stamps).toEqual([T0 / 1000 + 5, T0 / 1000 + 5, T0 / 1000 + 7]);
    expect(r.transport.counters()).toMatchObject({ sent: 3, superseded: 1 });
  });

  it('is kept per device and per activity', async () => {
    r = await rig({ connectionThread });
    r.registry.setActivityToken('phone', 'acme', 'deploy', 'ac'.repeat(32));
    r.registry.setActivityToken('other', 'acme', 'build', 'ad'.repeat(32));
    await r.transport.pushActivity('phone', activity('update', T0 + 9_000));
    await r.transport.pushActivity('phone', activity('update', T0 + 1_000, { slug: 'deploy' }));
    await r.transport.pushActivity('other', activity('update', T0 + 1_000));
    expect(r.double.received.map((g) => (g.payload as { aps: { timestamp: number } }).aps.timestamp)).toEqual([T0 / 1000 + 9, T0 / 1000 + 1, T0 / 1000 + 1]);
  });

  it('fast updates of one activity: the latest reaches the device, the ones it replaced before they were sent are superseded', async () => {
    r = await rig({ connectionThread });
    const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => r.transport.pushActivity('phone', activity('update', T0 + i * 1000))));
    const stamps = r.double.received.map((g) => (g.payload as { aps: { timestamp: number } }).aps.timestamp);
    expect(stamps).toEqual([T0 / 1000 + 19]);
    expect(outcomes.slice(0, 19).every((outcome) => outcome === 'superseded')).toBe(true);
    expect(outcomes[19]).toBe('delivered');
    expect(r.transport.counters()).toMatchObject({ sent: 1, superseded: 19 });
    expect(r.transport.backlog()).toEqual({ queued: 0, working: 0, retrying: 0, keys: 0 });
  });

  it('a push older than the newest of its activity still waiting is superseded at once, and does not replace it', async () => {
    r = await rig({ connectionThread });
    const newer = r.transport.pushActivity('phone', activity('update', T0 + 5_000));
    expect(await r.transport.pushActivity('phone', activity('update', T0 + 4_000))).toBe('superseded');
    expect(await newer).toBe('delivered');
    expect(r.double.received.map((g) => (g.payload as { aps: { timestamp: number } }).aps.timestamp)).toEqual([T0 / 1000 + 5]);
  });
});

describe.each(CONNECTION_THREADS)('transport-apns: start pushes to devices that follow channels (connections on the %s thread)', (connectionThread) => {
  let r: Rig;
  afterEach(() => r?.close());

  it('a start names the channel of its environment to a device that follows channels, the token push to the others (docs/contract/broadcast-channels.md#broadcast-start)', async () => {
    r = await rig({ connectionThread });
    r.registry.register('phone', { environment: 'sandbox', channels: true });
    r.registry.register('tablet', { environment: 'production', pushToStart: TOKENS.otherWidgets, channels: true });
    const push = activity('start', T0, { channels: { production: null, sandbox: 'U0FOREJPWA==' } });
    await Promise.all(['phone', 'other', 'tablet'].map((device) => r.transport.pushActivity(device, push)));
    const aps = (token: string) => (r.double.received.find((g) => g.deviceToken === token)!.payload as { aps: Record<string, unknown> }).aps;
    expect(r.double.received.map((g) => g.status)).toEqual([200, 200, 200]);
    expect(aps(TOKENS.start)['input-push-channel']).toBe('U0FOREJPWA==');
    expect(aps(TOKENS.start)).not.toHaveProperty('input-push-token');
    // A device that does not follow channels, and one whose environment has none: the token push.
    expect(aps(TOKENS.otherStart)['input-push-token']).toBe(1);
    expect(aps(TOKENS.otherWidgets)['input-push-token']).toBe(1);
    expect(aps(TOKENS.otherWidgets)).not.toHaveProperty('input-push-channel');
  });
});
