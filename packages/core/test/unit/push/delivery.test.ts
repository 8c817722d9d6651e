import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock, type ManualClock } from '../../../../../test/support/manual-clock.js';
import { WITHDRAWN, type PushAnswer } from '../../../src/transport/push/connection.js';
import type { Connections } from '../../../src/transport/push/connection-pool.js';
import { zeroPushCounters, type PushCounters } from '../../../src/transport/push/counters.js';
import type { CredentialRenewal, PushCredential } from '../../../src/transport/push/credential.js';
import { PushDelivery, type PushJob, type DeliveryResult, type DeliveryRules } from '../../../src/transport/push/delivery.js';
import { Superseding } from '../../../src/transport/push/superseding.js';

// The shared delivery loop, on a service of its own: answers and credential scripted, every
// wait on a manual clock. What each transport's table makes of it is tested in its package.

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);
const OK: PushAnswer = { kind: 'answer', status: 200, reason: null, retryAfter: null };
const status = (code: number, reason: string | null = null, retryAfter: string | null = null): PushAnswer => ({
  kind: 'answer',
  status: code,
  reason,
  retryAfter,
});

interface Job extends PushJob {
  token: string;
  deviceId: string;
  seq: number;
}

/** A credential whose tokens are numbered; `validNow` false makes the next push renew first. */
class Tokens implements PushCredential {
  issued = 1;
  validNow = true;
  renewals: CredentialRenewal[] = [];
  refusals: string[] = [];
  /** What `refused` answers: true (renewed), false (renewing would not help). */
  mayRenew = true;
  valid(): string | null {
    return this.validNow ? `token ${this.issued}` : null;
  }
  renew(): Promise<CredentialRenewal> {
    const renewal = this.renewals.shift() ?? { kind: 'ok', authorization: `token ${++this.issued}` };
    if (renewal.kind === 'ok') this.validNow = true;
    return Promise.resolve(renewal);
  }
  refused(used: string): boolean {
    this.refusals.push(used);
    if (!this.mayRenew) return false;
    this.issued += 1;
    return true;
  }
}

interface Rig {
  clock: ManualClock;
  delivery: PushDelivery<Job>;
  superseding: Superseding<Job>;
  counters: PushCounters;
  tokens: Tokens;
  /** What the connections were asked: when, and with which authorization. */
  sent: Array<{ at: number; authorization: string }>;
  logs: string[];
  removed: string[];
  left: () => number;
  job(key?: string): Job;
  send(job: Job): Promise<DeliveryResult>;
}

/** The loop over connections that answer `answers` in order (then `200`); an answer may be one still to come. */
function rig(answers: Array<PushAnswer | Promise<PushAnswer>>, table: Partial<DeliveryRules<Job>> = {}): Rig {
  const clock = createManualClock(T0);
  const sent: Rig['sent'] = [];
  const connections: Connections<Job> = {
    request(_origin, _job, authorization) {
      sent.push({ at: clock.now(), authorization });
      return Promise.resolve(answers.shift() ?? OK);
    },
    load: () => ({}),
    close: async () => {},
  };
  const superseding = new Superseding<Job>();
  const counters = zeroPushCounters();
  const tokens = new Tokens();
  const logs: string[] = [];
  const removed: string[] = [];
  const logger = {
    info: (message: string) => void logs.push(message),
    warn: (message: string) => void logs.push(message),
    error: (message: string) => void logs.push(message),
  };
  const rules: DeliveryRules<Job> = {
    maxRetries: 2,
    quotaWaitMs: 0,
    refusesCredential: (answer) => answer.status === 401,
    name: 'svc',
    credentialName: 'svc token',
    tokenName: 'device token',
    deadTokens: new Set(['410 Gone']),
    closedEndsFailures: false,
    sending(job, now) {
      job.expiresAtMs = now + 60_000;
    },
    originOf: () => 'https://svc.test',
    afterDelivered: () => undefined,
    removeToken: (job) => Promise.resolve(void removed.push(job.token)),
    about: (job) => ({ deviceId: job.deviceId }),
    credentialRefused: () => undefined,
    ...table,
  };
  const delivery = new PushDelivery<Job>({
    connections,
    credential: tokens,
    superseding,
    counters,
    rules,
    retryBaseMs: 1000,
    clock,
    logger,
    random: () => 0.5,
  });
  let left = 0;
  return {
    clock,
    delivery,
    superseding,
    counters,
    tokens,
    sent,
    logs,
    removed,
    left: () => left,
    job(key = 'phone\nwidgets\nacme/boiler') {
      const ticket = { key, seq: 0 };
      const displaced = superseding.handOver(ticket, 0);
      if (displaced !== undefined) delivery.giveWay(displaced);
      const job: Job = { key, seq: ticket.seq, token: 'abc', deviceId: 'phone', expiresAtMs: 0, requested: false, leave: () => void (left += 1) };
      superseding.built(job);
      return job;
    },
    send: (job) => delivery.send(job).finally(() => superseding.settle(job.key, job.seq)),
  };
}

async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Lets the attempt in flight settle, then moves the clock by `ms`. */
async function after(r: Rig, ms: number): Promise<void> {
  await flush();
  r.clock.advance(ms);
  await flush();
}

describe('PushDelivery: the delivery loop every push transport shares', () => {
  let r: Rig;
  afterEach(() => r?.delivery.close());

  it('a 200: delivered at the first attempt, with the credential in use, after what the transport does on one', async () => {
    let forget: () => void = () => {};
    r = rig([], { afterDelivered: () => new Promise<void>((resolve) => (forget = resolve)) });
    const sending = r.send(r.job());
    let settled = false;
    void sending.then(() => (settled = true));
    await flush();
    expect(settled).toBe(false);
    forget();
    expect(await sending).toBe('delivered');
    expect(r.sent).toEqual([{ at: T0, authorization: 'token 1' }]);
    expect(r.counters).toMatchObject({ sent: 1, retried: 0, dropped: 0 });
  });

  it('5xx, lost streams and timeouts: retried after the jittered backoff, the slot given up before each wait, then dropped', async () => {
    r = rig([status(503), { kind: 'timeout' }, { kind: 'network', error: 'ECONNRESET' }]);
    const sending = r.send(r.job());
    await after(r, 749);
    expect(r.sent).toHaveLength(1);
    await after(r, 1);
    await after(r, 1499);
    expect(r.sent).toHaveLength(2);
    await after(r, 1);
    expect(await sending).toEqual({ outcome: 'dropped', reason: 'retries used up' });
    expect(r.sent.map((s) => s.at - T0)).toEqual([0, 750, 2250]);
    expect(r.counters).toMatchObject({ retried: 2, timeouts: 1, dropped: 1 });
    expect(r.left()).toBe(2);
    expect(r.logs).toEqual(['svc: push dropped (retries used up)']);
  });

  it("429: its retry-after is honoured; without one, the table's quota wait", async () => {
    r = rig([status(429, 'Slow', '5'), status(429, 'Slow')], { quotaWaitMs: 30_000 });
    const sending = r.send(r.job());
    await after(r, 5_249);
    expect(r.sent).toHaveLength(1);
    await after(r, 1);
    await after(r, 30_499);
    expect(r.sent).toHaveLength(2);
    await after(r, 1);
    expect(await sending).toBe('delivered');
    expect(r.sent.map((s) => s.at - T0)).toEqual([0, 5_250, 35_750]);
  });

  it('a retry that would land past the expiry: dropped at once, with what the service said', async () => {
    r = rig([status(429, 'Slow', '60')]);
    expect(await r.send(r.job())).toEqual({ outcome: 'dropped', reason: 'expired: Slow' });
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it('a dead token: removed, token_removed, never retried', async () => {
    r = rig([status(410, 'Gone')]);
    expect(await r.send(r.job())).toBe('token_removed');
    expect(r.removed).toEqual(['abc']);
    expect(r.counters).toMatchObject({ tokensRemoved: 1, retried: 0 });
    expect(r.logs).toEqual(['svc: device token removed']);
  });

  it("another 4xx: refused with the service's reason, the table's hook told, never retried", async () => {
    const told: PushAnswer[] = [];
    r = rig([status(400, 'BadThing')], { refused: (_job, answer) => void told.push(answer) });
    expect(await r.send(r.job())).toEqual({ outcome: 'refused', reason: 'BadThing' });
    expect(told).toEqual([status(400, 'BadThing')]);
    expect(r.sent).toHaveLength(1);
  });

  it('a refused credential: renewed and tried again at once, once per push; refused again, given up as the table says', async () => {
    r = rig([status(401), status(401)], { credentialRefused: (_job, renewed, answer) => (renewed ? answer : undefined) });
    expect(await r.send(r.job())).toEqual({ outcome: 'refused', reason: 'svc token refused: status 401' });
    expect(r.sent).toEqual([
      { at: T0, authorization: 'token 1' },
      { at: T0, authorization: 'token 2' },
    ]);
    expect(r.tokens.refusals).toEqual(['token 1']);
    expect(r.counters).toMatchObject({ retried: 1, dropped: 1 });
  });

  it('a credential that may not be renewed yet: given up at the first refusal', async () => {
    r = rig([status(401)]);
    r.tokens.mayRenew = false;
    expect(await r.send(r.job())).toEqual({ outcome: 'refused', reason: 'svc token refused' });
    expect(r.counters).toMatchObject({ retried: 0, dropped: 1 });
  });

  it('no valid credential: renewed before the first attempt; a failed renewal is retried as a lost request; a refused one refuses the push', async () => {
    r = rig([]);
    r.tokens.validNow = false;
    r.tokens.renewals = [{ kind: 'failed', error: 'timeout' }];
    const sending = r.send(r.job());
    await after(r, 750);
    expect(await sending).toBe('delivered');
    expect(r.sent).toEqual([{ at: T0 + 750, authorization: 'token 2' }]);
    expect(r.counters).toMatchObject({ retried: 1, sent: 1 });
    r.tokens.validNow = false;
    r.tokens.renewals = [{ kind: 'refused' }];
    expect(await r.send(r.job('other'))).toEqual({ outcome: 'refused', reason: 'svc token refused' });
  });

  it('a newer push of its key while the credential is renewed: superseded, never sent', async () => {
    r = rig([]);
    r.tokens.validNow = false;
    const older = r.send(r.job());
    r.job();
    expect(await older).toBe('superseded');
    expect(r.sent).toHaveLength(0);
  });

  it('withdrawn from the stream queue, or waiting to retry when a newer push comes: superseded', async () => {
    r = rig([WITHDRAWN]);
    expect(await r.send(r.job())).toBe('superseded');
    r = rig([status(500)]);
    const waiting = r.send(r.job());
    await flush();
    expect(r.delivery.retrying).toBe(1);
    r.job();
    expect(await waiting).toBe('superseded');
    expect(r.clock.pendingTimers()).toBe(0);
  });

  it('closed: a push waiting to retry is dropped at once, and every push after', async () => {
    r = rig([status(500)]);
    const waiting = r.send(r.job());
    await flush();
    r.delivery.close();
    expect(await waiting).toEqual({ outcome: 'dropped', reason: 'transport closed' });
    expect(await r.send(r.job('later'))).toEqual({ outcome: 'dropped', reason: 'transport closed' });
    expect(await r.delivery.dropClosed()).toEqual({ outcome: 'dropped', reason: 'transport closed' });
    expect(r.counters.dropped).toBe(3);
  });

  it('a failure answered after close: given up as closed when the table says so, else judged as any other', async () => {
    for (const closedEndsFailures of [true, false]) {
      let answer: (value: PushAnswer) => void = () => {};
      r = rig([new Promise<PushAnswer>((resolve) => (answer = resolve))], { closedEndsFailures });
      const sending = r.send(r.job());
      r.delivery.close();
      answer(status(400, 'BadThing'));
      expect(await sending).toEqual(closedEndsFailures ? { outcome: 'dropped', reason: 'transport closed' } : { outcome: 'refused', reason: 'BadThing' });
    }
  });
});
