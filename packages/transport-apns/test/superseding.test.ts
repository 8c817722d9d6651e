import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../test/support/manual-clock.js';
import { PushBuilder } from '../src/payloads.js';
import { Superseding } from '../src/superseding.js';
import { BUNDLE_ID, T0, TOKENS, widget } from './support.js';

const builder = new PushBuilder({ bundleId: BUNDLE_ID, attributesType: 'BuildAttributes', updatePriority: 10, clock: createManualClock(T0) });
/** A widgets push's job: its key is the device token and the widget. */
const jobFor = (token: string, slug = 'boiler') => builder.widgetJob('phone', widget({ slug }), token, 'sandbox', () => {});

describe('transport-apns Superseding: newer pushes win', () => {
  it('a newer push for the same device token and widget makes an older one still at work give way', () => {
    const superseding = new Superseding();
    const older = jobFor(TOKENS.widgets);
    superseding.stamp(older);
    expect(superseding.isSuperseded(older)).toBe(false);
    const newer = jobFor(TOKENS.widgets);
    superseding.stamp(newer);
    expect(superseding.isSuperseded(older)).toBe(true);
    expect(superseding.isSuperseded(newer)).toBe(false);
  });

  it('pushes for another widget or another device token do not', () => {
    const superseding = new Superseding();
    const job = jobFor(TOKENS.widgets);
    superseding.stamp(job);
    superseding.stamp(jobFor(TOKENS.widgets, 'pump'));
    superseding.stamp(jobFor(TOKENS.otherWidgets));
    expect(superseding.isSuperseded(job)).toBe(false);
  });

  it('an older push settling leaves the newer one the newest', () => {
    const superseding = new Superseding();
    const older = jobFor(TOKENS.widgets);
    const newer = jobFor(TOKENS.widgets);
    superseding.stamp(older);
    superseding.stamp(newer);
    superseding.settle(older);
    expect(superseding.isSuperseded(newer)).toBe(false);
    superseding.settle(newer);
    const next = jobFor(TOKENS.widgets);
    superseding.stamp(next);
    expect(superseding.isSuperseded(next)).toBe(false);
  });

  it('an activity push older than one handed over for that activity on that device is stale; the same time or newer is not', () => {
    const superseding = new Superseding();
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
