import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../test/support/manual-clock.js';
import { PushBuilder } from '../src/payloads.js';
import { pushKey, Superseding } from '@tilecast/core/push';
import type { Job } from '../src/job.js';
import { activity, activityTicket, BUNDLE_ID, T0, TOKENS, widget, widgetTicket } from './support.js';

const builder = new PushBuilder({ bundleId: BUNDLE_ID, attributesType: 'BuildAttributes', updatePriority: 10, clock: createManualClock(T0) });
/** A widgets push to `deviceId`, handed over, and its job once built. */
function handOver(superseding: Superseding<Job>, slug = 'boiler', deviceId = 'phone') {
  const ticket = widgetTicket(widget({ slug }), deviceId);
  const displaced = superseding.handOver(ticket, ticket.at ?? 0);
  const build = () => {
    const job = builder.widgetJob(ticket, TOKENS.widgets, 'sandbox', () => {});
    superseding.built(job);
    return job;
  };
  return { ticket, displaced, build };
}

describe('transport-apns pushKey: what a newer push replaces', () => {
  it('the same device and widget, the same activity start, or the same activity update or end', () => {
    const update = activity('update', T0);
    expect(pushKey('phone', update)).toBe(pushKey('phone', activity('end', T0 + 1000)));
    expect(pushKey('phone', update)).not.toBe(pushKey('phone', activity('start', T0)));
    expect(pushKey('phone', update)).not.toBe(pushKey('other', update));
    expect(pushKey('phone', update)).not.toBe(pushKey('phone', activity('update', T0, { slug: 'deploy' })));
    // An activity and a widget of the same slug are different things.
    expect(pushKey('phone', widget({ slug: 'build' }))).not.toBe(pushKey('phone', update));
  });
});

describe('transport-apns Superseding: newer pushes win', () => {
  it('a newer push for the same device and widget makes an older one give way, and answers its job once built', () => {
    const superseding = new Superseding<Job>();
    const older = handOver(superseding);
    expect(older.displaced).toBeUndefined();
    expect(superseding.isSuperseded(older.ticket.key, older.ticket.seq)).toBe(false);
    const job = older.build();
    const newer = handOver(superseding);
    expect(newer.displaced).toBe(job);
    expect(superseding.isSuperseded(older.ticket.key, older.ticket.seq)).toBe(true);
    expect(superseding.isSuperseded(newer.ticket.key, newer.ticket.seq)).toBe(false);
    // Not built yet: the next one displaces no job.
    expect(handOver(superseding).displaced).toBeUndefined();
  });

  it('pushes for another widget or another device do not', () => {
    const superseding = new Superseding<Job>();
    const { ticket } = handOver(superseding);
    handOver(superseding, 'pump');
    handOver(superseding, 'boiler', 'other');
    expect(superseding.isSuperseded(ticket.key, ticket.seq)).toBe(false);
    expect(superseding.keys).toBe(3);
  });

  it('an older push settling leaves the newer one the newest; the newest settling forgets the key', () => {
    const superseding = new Superseding<Job>();
    const older = handOver(superseding).ticket;
    const newer = handOver(superseding).ticket;
    superseding.settle(older.key, older.seq);
    expect(superseding.isSuperseded(newer.key, newer.seq)).toBe(false);
    superseding.settle(newer.key, newer.seq);
    expect(superseding.keys).toBe(0);
    const next = handOver(superseding).ticket;
    expect(superseding.isSuperseded(next.key, next.seq)).toBe(false);
  });

  it('a push for an earlier activity time than the newest of its key still at work is older: it is not handed over', () => {
    const superseding = new Superseding<Job>();
    const ticket = activityTicket(builder, activity('update', T0 + 5_000));
    expect(superseding.isOlder(ticket.key, T0)).toBe(false);
    superseding.handOver(ticket, ticket.at ?? 0);
    expect(superseding.isOlder(ticket.key, T0 + 4_999)).toBe(true);
    expect(superseding.isOlder(ticket.key, T0 + 5_000)).toBe(false);
    superseding.settle(ticket.key, ticket.seq);
    expect(superseding.isOlder(ticket.key, T0)).toBe(false);
  });

  it('an activity push older than one handed over for that activity on that device is stale; the same time or newer is not', () => {
    const superseding = new Superseding<Job>();
    expect(superseding.isStale('phone', 'acme', 'build', T0 + 5_900)).toBe(false);
    expect(superseding.isStale('phone', 'acme', 'build', T0 + 5_899)).toBe(true);
    expect(superseding.isStale('phone', 'acme', 'build', T0 + 5_900)).toBe(false);
    // Another device, or another activity, has a time of its own.
    expect(superseding.isStale('other', 'acme', 'build', T0)).toBe(false);
    expect(superseding.isStale('phone', 'acme', 'deploy', T0)).toBe(false);
    // A stale push does not move the time back.
    expect(superseding.isStale('phone', 'acme', 'build', T0)).toBe(true);
    expect(superseding.isStale('phone', 'acme', 'build', T0 + 5_000)).toBe(true);
  });

  it('remembers a bounded number of device-activity times, forgetting the oldest', () => {
    const superseding = new Superseding(2);
    superseding.isStale('phone', 'acme', 'a', T0 + 1000);
    superseding.isStale('phone', 'acme', 'b', T0 + 1000);
    superseding.isStale('phone', 'acme', 'a', T0 + 2000); // refreshed: now the newest entry
    superseding.isStale('phone', 'acme', 'c', T0 + 1000); // b, the oldest, is forgotten
    expect(superseding.isStale('phone', 'acme', 'a', T0)).toBe(true);
    expect(superseding.isStale('phone', 'acme', 'b', T0)).toBe(false);
  });
});
