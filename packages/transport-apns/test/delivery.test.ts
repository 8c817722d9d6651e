import type { PushOutcome } from '@tilecast/core';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../../test/support/manual-clock.js';
import { PushDelivery, Superseding, WITHDRAWN, type Connections, type PushAnswer } from '@tilecast/core/push';
import { type ApnsCounters, zeroCounters } from '../src/counters.js';
import { outcomeOf } from '@tilecast/core/push';
import { apnsDeliveryRules } from '../src/delivery.js';
import type { Job } from '../src/job.js';
import type { ApnsRequest } from '../src/request.js';
import { PushBuilder } from '../src/payloads.js';
import { ProviderToken, providerCredential, readSigningKey } from '../src/provider-token.js';
import { createMemoryApnsRegistry, type MemoryApnsRegistry } from '../src/registry.js';
import type { Ticket } from '../src/job.js';
import { activity, activityTicket, BUNDLE_ID, flush, KEY_ID, T0, TEAM_ID, testSigningKey, TOKENS, widget, widgetTicket } from './support.js';

const MIN = 60_000;
const ORIGIN = 'https://apns.test';
const OK: PushAnswer = { kind: 'answer', status: 200, reason: null, retryAfter: null };
const status = (code: number, reason: string | null = null, retryAfter: string | null = null): PushAnswer => ({
  kind: 'answer',
  status: code,
  reason,
  retryAfter,
});

/** What the fake connections were asked to send. */
interface Attempt {
  at: number;
  origin: string;
  token: string;
  expiration: number;
  authorization: string;
}

interface DeliveryRig {
  clock: ManualClock;
  delivery: PushDelivery<Job>;
  superseding: Superseding<Job>;
  counters: ApnsCounters;
  registry: MemoryApnsRegistry;
  attempts: Attempt[];
  warnings: string[];
  /** How many times a push gave its admission slot up. */
  left: () => number;
  /** A push handed over as the transport does (the newest of its key, the one it displaces giving way), and built. */
  widgetJob(slug?: string): Job;
  activityJob(phase: 'start' | 'update' | 'end'): Job;
  /** Sends `job`, its key forgotten once settled as the transport does. */
  send(job: Job): Promise<PushOutcome>;
}

const signingKey = readSigningKey(testSigningKey().privateKey);

/** Delivery over connections that answer `answers` in order (then `200`), all on a fake clock. */
function deliveryRig(answers: PushAnswer[]): DeliveryRig {
  const clock = createManualClock(T0);
  const attempts: Attempt[] = [];
  const connections: Connections<ApnsRequest> = {
    request(origin, request, authorization) {
      attempts.push({ at: clock.now(), origin, token: request.token, expiration: request.expiration, authorization });
      return Promise.resolve(answers.shift() ?? OK);
    },
    load: () => ({}),
    close: async () => {},
  };
  const registry = createMemoryApnsRegistry();
  registry.register('phone', { environment: 'sandbox', pushToStart: TOKENS.start, widgets: TOKENS.widgets });
  registry.setActivityToken('phone', 'acme', 'build', TOKENS.update);
  const superseding = new Superseding<Job>();
  const counters = zeroCounters();
  const warnings: string[] = [];
  const logger = { info: () => {}, warn: (message: string) => void warnings.push(message), error: () => {} };
  const delivery = new PushDelivery<Job>({
    connections,
    credential: providerCredential(new ProviderToken(signingKey, KEY_ID, TEAM_ID, clock), counters),
    rules: apnsDeliveryRules({ originOf: () => ORIGIN, registry, logger }),
    superseding,
    counters,
    retryBaseMs: 1000,
    clock,
    logger,
    random: () => 0.5,
  });
  const builder = new PushBuilder({ bundleId: BUNDLE_ID, attributesType: 'BuildAttributes', updatePriority: 10, clock });
  let left = 0;
  const leave = () => void (left += 1);
  const handOver = (ticket: Ticket, build: () => Job): Job => {
    const displaced = superseding.handOver(ticket, ticket.at ?? 0);
    if (displaced !== undefined) delivery.giveWay(displaced);
    const job = build();
    superseding.built(job);
    return job;
  };
  return {
    clock,
    delivery,
    superseding,
    counters,
    registry,
    attempts,
    warnings,
    left: () => left,
    widgetJob(slug = 'boiler') {
      const ticket = widgetTicket(widget({ slug }));
      return handOver(ticket, () => builder.widgetJob(ticket, TOKENS.widgets, 'sandbox', leave));
    },
    activityJob(phase) {
      const ticket = activityTicket(builder, activity(phase, T0));
      return handOver(ticket, () => builder.activityJob(ticket, phase === 'start' ? TOKENS.start : TOKENS.update, 'sandbox', leave));
    },
    send: (job) =>
      delivery
        .send(job)
        .then(outcomeOf)
        .finally(() => superseding.settle(job.key, job.seq)),
  };
}

/** Lets the attempt in flight settle, then moves the clock by `ms`. */
async function after(d: DeliveryRig, ms: number): Promise<void> {
  await flush();
  d.clock.advance(ms);
  await flush();
}

describe('transport-apns delivery rules on the shared loop: one push, its retries and its outcome', () => {
  let d: DeliveryRig;
  afterEach(() => d?.delivery.close());

  it('200: delivered, with the expiration fixed at the first attempt and the provider token as bearer', async () => {
    d = deliveryRig([]);
    expect(await d.send(d.widgetJob())).toBe('delivered');
    expect(d.attempts).toEqual([
      { at: T0, origin: ORIGIN, token: TOKENS.widgets, expiration: T0 / 1000 + 3600, authorization: expect.stringMatching(/^bearer ey/) },
    ]);
    expect(d.counters).toMatchObject({ sent: 1, retried: 0, dropped: 0, providerTokens: 1 });
  });

  it('5xx and lost streams are retried twice, after 0.75 s then 1.5 s (jittered 1 s and 2 s), then dropped', async () => {
    d = deliveryRig([status(500), { kind: 'network', error: 'ECONNRESET' }, status(503)]);
    const sending = d.send(d.activityJob('update'));
    await after(d, 749);
    expect(d.attempts).toHaveLength(1);
    await after(d, 1);
    expect(d.attempts).toHaveLength(2);
    await after(d, 1499);
    expect(d.attempts).toHaveLength(2);
    await after(d, 1);
    expect(await sending).toBe('dropped');
    expect(d.attempts.map((a) => a.at - T0)).toEqual([0, 750, 2250]);
    expect(d.attempts.map((a) => a.expiration)).toEqual([T0 / 1000 + 3600, T0 / 1000 + 3600, T0 / 1000 + 3600]);
    expect(d.counters).toMatchObject({ sent: 0, retried: 2, dropped: 1 });
    expect(d.warnings).toEqual(['apns: push dropped (retries used up)']);
    expect(d.left()).toBe(2); // the slot is given up before each wait
  });

  it("429's retry-after is honoured: not before it, then within half the base", async () => {
    d = deliveryRig([status(429, 'TooManyRequests', '5')]);
    const sending = d.send(d.widgetJob());
    await after(d, 5_249);
    expect(d.attempts).toHaveLength(1);
    await after(d, 1);
    expect(await sending).toBe('delivered');
    expect(d.attempts.map((a) => a.at - T0)).toEqual([0, 5_250]);
    expect(d.counters).toMatchObject({ sent: 1, retried: 1 });
  });

  it('a timeout is counted and retried', async () => {
    d = deliveryRig([{ kind: 'timeout' }]);
    const sending = d.send(d.widgetJob());
    await after(d, 750);
    expect(await sending).toBe('delivered');
    expect(d.counters).toMatchObject({ sent: 1, retried: 1, timeouts: 1 });
  });

  it('a retry that would land past the expiration drops the push at once', async () => {
    d = deliveryRig([status(429, 'TooManyRequests', '3600')]);
    expect(await d.send(d.widgetJob())).toBe('dropped');
    expect(d.counters).toMatchObject({ retried: 0, dropped: 1 });
    expect(d.warnings).toEqual(['apns: push dropped (expired)']);
    expect(d.clock.pendingTimers()).toBe(0);
  });

  it('a push whose expiration passed while it waited is dropped instead of sent', async () => {
    d = deliveryRig([status(429, 'TooManyRequests', '3599')]);
    const sending = d.send(d.widgetJob());
    await after(d, 3600 * 1000);
    expect(await sending).toBe('dropped');
    expect(d.attempts).toHaveLength(1);
    expect(d.warnings).toEqual(['apns: push dropped (expired)']);
  });

  it('a dead token: token_removed, gone from the registry, never retried', async () => {
    d = deliveryRig([status(410, 'Unregistered')]);
    expect(await d.send(d.widgetJob())).toBe('token_removed');
    expect((await d.registry.registrationsOf('phone'))?.widgets).toBeNull();
    expect(d.counters).toMatchObject({ tokensRemoved: 1, retried: 0 });
  });

  it('another 4xx: refused, never retried', async () => {
    d = deliveryRig([status(400, 'BadCollapseId')]);
    expect(await d.send(d.widgetJob())).toBe('refused');
    expect(d.attempts).toHaveLength(1);
    expect(d.counters).toMatchObject({ dropped: 1, retried: 0 });
  });

  it('403 ExpiredProviderToken: renewed and retried at once when the token is 20 minutes old, refused when younger', async () => {
    d = deliveryRig([status(403, 'ExpiredProviderToken'), status(403, 'ExpiredProviderToken')]);
    expect(await d.send(d.widgetJob('young'))).toBe('refused');
    d.clock.advance(20 * MIN);
    expect(await d.send(d.widgetJob('old'))).toBe('delivered');
    expect(d.attempts.map((a) => a.at - T0)).toEqual([0, 20 * MIN, 20 * MIN]);
    expect(d.attempts[2]!.authorization).not.toBe(d.attempts[1]!.authorization);
    expect(d.counters).toMatchObject({ sent: 1, retried: 1, dropped: 1, providerTokens: 2 });
  });

  it('an end, once delivered, forgets the update token it was sent to', async () => {
    d = deliveryRig([]);
    expect(await d.send(d.activityJob('end'))).toBe('delivered');
    expect(await d.registry.activityTokenOf('phone', 'acme', 'build')).toBeNull();
  });

  it('a push waiting to retry gives way at once to a newer one for the same device and widget: superseded', async () => {
    d = deliveryRig([status(500)]);
    const older = d.send(d.widgetJob());
    await flush();
    expect(d.delivery.retrying).toBe(1);
    const newer = d.widgetJob();
    expect(await older).toBe('superseded'); // without the clock moving
    expect(d.delivery.retrying).toBe(0);
    expect(d.clock.pendingTimers()).toBe(0);
    expect(await d.send(newer)).toBe('delivered');
    expect(d.attempts).toHaveLength(2);
    expect(d.counters).toMatchObject({ sent: 1, superseded: 1, dropped: 0 });
  });

  it('giveWay answers true only while the push is with the connections (where a newer one is to take its place)', async () => {
    d = deliveryRig([]);
    const job = d.widgetJob();
    expect(d.delivery.giveWay(job)).toBe(false);
    const sending = d.send(job);
    expect(job.requested).toBe(true);
    expect(d.delivery.giveWay(job)).toBe(true);
    expect(await sending).toBe('delivered');
    expect(job.requested).toBe(false);
  });

  it('a request withdrawn from the stream queue (a newer one took its place): superseded, never retried', async () => {
    d = deliveryRig([WITHDRAWN]);
    expect(await d.send(d.widgetJob())).toBe('superseded');
    expect(d.attempts).toHaveLength(1);
    expect(d.counters).toMatchObject({ sent: 0, retried: 0, dropped: 0, superseded: 1 });
  });

  it('close() drops a push waiting to retry at once, and every push after', async () => {
    d = deliveryRig([status(500)]);
    const waiting = d.send(d.widgetJob());
    await flush();
    d.delivery.close();
    expect(await waiting).toBe('dropped');
    expect(d.clock.pendingTimers()).toBe(0);
    expect(d.delivery.closed).toBe(true);
    expect(await d.send(d.widgetJob('later'))).toBe('dropped');
    expect(await d.delivery.dropClosed()).toEqual({ outcome: 'dropped', reason: 'transport closed' });
    expect(d.attempts).toHaveLength(1);
    expect(d.counters).toMatchObject({ dropped: 3 });
  });
});
