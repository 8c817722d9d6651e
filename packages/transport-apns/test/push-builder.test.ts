import { describe, expect, it, vi } from 'vitest';
import { createManualClock } from '../../../test/support/manual-clock.js';
import type { Job } from '../src/job.js';
import { PushBuilder } from '../src/payloads.js';
import { activity, activityTicket, BUNDLE_ID, T0, TOKENS, widget, widgetTicket } from './support.js';

const leave = () => {};
const builderOf = (updatePriority: 5 | 10 = 10, clock = createManualClock(T0)) =>
  new PushBuilder({ bundleId: BUNDLE_ID, attributesType: 'BuildAttributes', updatePriority, clock });
const contentState = (state: string) => ({ state, content: { template: 'progress', progress: 0.5 } });

/** The job of an activity push as the transport builds it: payload first, then the job. */
function activityJob(builder: PushBuilder, push: ReturnType<typeof activity>, token: string): Job {
  return builder.activityJob(activityTicket(builder, push), token, 'sandbox', leave);
}

describe('transport-apns PushBuilder: what each kind of push is sent as (docs/contract/apns.md#apns-pushes)', () => {
  it('a start: liveactivity push with priority 10, attributes, alert and input-push-token', () => {
    const job = activityJob(builderOf(5), activity('start', T0 + 1500), TOKENS.start);
    expect(job).toEqual({
      deviceId: 'phone',
      token: TOKENS.start,
      key: 'phone\nstart\nacme/build',
      seq: 0,
      environment: 'sandbox',
      pushType: 'liveactivity',
      topic: `${BUNDLE_ID}.push-type.liveactivity`,
      priority: 10,
      body: expect.any(String),
      owner: 'acme',
      slug: 'build',
      what: 'start',
      requested: false,
      leave,
      expiration: 0,
      expiresAtMs: 0,
    });
    expect(JSON.parse(job.body)).toEqual({
      aps: {
        timestamp: T0 / 1000 + 1,
        event: 'start',
        'content-state': contentState('ONGOING'),
        'attributes-type': 'BuildAttributes',
        attributes: { owner: 'acme', slug: 'build', template: 'progress' },
        alert: { title: 'build', body: '' },
        'input-push-token': 1,
      },
    });
  });

  it('an update: the updatePriority option, timestamp and content-state only', () => {
    const job = activityJob(builderOf(5), activity('update', T0 + 2999), TOKENS.update);
    expect(job).toMatchObject({ pushType: 'liveactivity', topic: `${BUNDLE_ID}.push-type.liveactivity`, priority: 5, what: 'update' });
    expect(JSON.parse(job.body)).toEqual({ aps: { timestamp: T0 / 1000 + 2, event: 'update', 'content-state': contentState('ONGOING') } });
    expect(activityJob(builderOf(10), activity('update', T0), TOKENS.update).priority).toBe(10);
  });

  it('an end: priority 10 whatever updatePriority, and the dismissal date T + ceil(delay)', () => {
    const job = activityJob(builderOf(5), activity('end', T0 + 3000, { dismissal_delay_s: 29.2 }), TOKENS.update);
    expect(job).toMatchObject({ pushType: 'liveactivity', priority: 10, what: 'end' });
    expect(JSON.parse(job.body)).toEqual({
      aps: { timestamp: T0 / 1000 + 3, event: 'end', 'content-state': contentState('IDLE'), 'dismissal-date': T0 / 1000 + 3 + 30 },
    });
  });

  it('a widgets push: content-changed to the widgets topic, with no apns-priority', () => {
    const job = builderOf(5).widgetJob(widgetTicket(widget({ slug: 'pump' })), TOKENS.widgets, 'production', leave);
    expect(job).toMatchObject({
      token: TOKENS.widgets,
      key: 'phone\nwidgets\nacme/pump',
      environment: 'production',
      pushType: 'widgets',
      topic: `${BUNDLE_ID}.push-type.widgets`,
      priority: null,
      what: 'widgets',
    });
    expect(JSON.parse(job.body)).toEqual({ aps: { 'content-changed': true } });
  });

  it('every job has the same fields in the same order, whatever its kind', () => {
    const builder = builderOf();
    const shapes = [
      activityJob(builder, activity('start', T0), TOKENS.start),
      activityJob(builder, activity('update', T0), TOKENS.update),
      activityJob(builder, activity('end', T0), TOKENS.update),
      builder.widgetJob(widgetTicket(widget()), TOKENS.widgets, 'sandbox', leave),
    ].map((job) => Object.keys(job).join());
    expect(new Set(shapes).size).toBe(1);
  });

  it("an activity push's payload is made once per push object, for every device of a fan-out", () => {
    const builder = builderOf();
    const push = activity('update', T0 + 1000);
    const payload = builder.activityPayload(push);
    expect(payload.at).toBe(T0 + 1000);
    expect(builder.activityPayload(push)).toBe(payload);
    expect(builder.activityPayload(activity('update', T0 + 1000))).not.toBe(payload);
  });

  it('a push without a valid updated_at takes the clock time, each time it is asked', () => {
    const clock = createManualClock(T0);
    const builder = builderOf(10, clock);
    const push = activity('update', T0, { updated_at: 'not a time' });
    expect(builder.activityPayload(push).at).toBe(T0);
    clock.advance(2000);
    const later = builder.activityPayload(push);
    expect(later.at).toBe(T0 + 2000);
    expect(JSON.parse(later.body).aps.timestamp).toBe(T0 / 1000 + 2);
  });

  describe('a start to a device that follows channels (docs/contract/broadcast-channels.md#broadcast-start)', () => {
    const channels = { production: 'UFJPRFVDVElPTg==', sandbox: 'U0FOREJPWA==' };

    it('names the channel with input-push-channel in place of input-push-token', () => {
      const builder = builderOf();
      const push = activity('start', T0, { channels });
      const aps = JSON.parse(builder.activityJob(activityTicket(builder, push), TOKENS.start, 'sandbox', leave, channels.sandbox).body).aps;
      expect(aps['input-push-channel']).toBe(channels.sandbox);
      expect(aps).not.toHaveProperty('input-push-token');
      const plain = JSON.parse(builder.activityJob(activityTicket(builder, push, 'other'), TOKENS.otherStart, 'sandbox', leave).body).aps;
      expect(plain['input-push-token']).toBe(1);
      expect({ ...aps, 'input-push-channel': undefined }).toEqual({ ...plain, 'input-push-token': undefined });
    });

    it('each payload is made once per push: the token one, and one per channel', () => {
      const builder = builderOf();
      const push = activity('start', T0, { channels });
      const stringify = vi.spyOn(JSON, 'stringify');
      try {
        for (const device of ['a', 'b', 'c']) {
          const ticket = activityTicket(builder, push, device);
          builder.activityJob(ticket, TOKENS.start, 'sandbox', leave, channels.sandbox);
          builder.activityJob(ticket, TOKENS.start, 'production', leave, channels.production);
          builder.activityJob(ticket, TOKENS.start, 'sandbox', leave);
        }
        expect(stringify).toHaveBeenCalledTimes(3);
      } finally {
        stringify.mockRestore();
      }
    });

    it('an update or end never names a channel', () => {
      const builder = builderOf();
      const push = activity('update', T0, { channels });
      expect(JSON.parse(builder.activityJob(activityTicket(builder, push), TOKENS.update, 'sandbox', leave, channels.sandbox).body).aps).not.toHaveProperty(
        'input-push-channel',
      );
    });
  });
});
