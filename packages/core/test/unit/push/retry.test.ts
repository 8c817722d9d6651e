import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../../test/support/manual-clock.js';
import { RECONNECT_MAX_MS, reconnectDelayMs } from '../../../src/transport/push/connection.js';
import { RetryWaits } from '../../../src/transport/push/retry-waits.js';
import { retryAfterMs, retryDelayMs } from '../../../src/transport/push/retry.js';

const T0 = Date.UTC(2026, 10, 22, 12, 0, 0);

describe('retryAfterMs', () => {
  it('reads seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterMs('5', T0)).toBe(5_000);
    expect(retryAfterMs(' 60 ', T0)).toBe(60_000);
    expect(retryAfterMs(new Date(T0 + 8_000).toUTCString(), T0)).toBe(8_000);
    expect(retryAfterMs(new Date(T0 - 8_000).toUTCString(), T0)).toBe(0);
    expect(retryAfterMs(null, T0)).toBe(0);
    expect(retryAfterMs('soon', T0)).toBe(0);
  });
});

describe('retryDelayMs', () => {
  it('doubles the base with each retry, jittered in [half, whole)', () => {
    expect([1, 2, 3].map((retry) => retryDelayMs(retry, 1000, 0, () => 0))).toEqual([500, 1000, 2000]);
    expect(retryDelayMs(1, 1000, 0, () => 0.5)).toBe(750);
    expect(retryDelayMs(2, 1000, 0, () => 0.999_999)).toBeLessThan(2000);
  });

  it('waits at least what the service asked for, spread over half the base after it', () => {
    expect(retryDelayMs(1, 1000, 60_000, () => 0)).toBe(60_000);
    expect(retryDelayMs(1, 1000, 60_000, () => 0.5)).toBe(60_250);
    expect(retryDelayMs(2, 1000, 5_000, () => 0.999_999)).toBeLessThan(6_000);
  });
});

describe('reconnectDelayMs', () => {
  it('doubles from 1 s with each connection lost in a row, jittered in [half, whole), capped at 60 s', () => {
    const low = () => 0;
    const high = () => 0.999_999;
    expect([1, 2, 3, 4, 5, 6].map((failures) => reconnectDelayMs(failures, low))).toEqual([500, 1000, 2000, 4000, 8000, 16000]);
    expect(reconnectDelayMs(1, high)).toBeLessThan(1000);
    expect(reconnectDelayMs(1, () => 0.5)).toBe(750);
    for (const failures of [7, 20, 1000]) {
      expect(reconnectDelayMs(failures, low)).toBe(RECONNECT_MAX_MS / 2);
      expect(reconnectDelayMs(failures, high)).toBeLessThan(RECONNECT_MAX_MS);
    }
  });
});

describe('RetryWaits', () => {
  it('ends a wait after its time on the clock', async () => {
    const clock = createManualClock(T0);
    const waits = new RetryWaits<string>(clock);
    let ended: boolean | undefined;
    void waits.wait('a', 1_000).then((value) => (ended = value));
    clock.advance(999);
    await Promise.resolve();
    expect(ended).toBeUndefined();
    clock.advance(1);
    await Promise.resolve();
    expect(ended).toBe(true);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('close() ends every wait at once, false, clears their timers, and every later wait too', async () => {
    const clock = createManualClock(T0);
    const waits = new RetryWaits<string>(clock);
    const waiting = [waits.wait('a', 1_000), waits.wait('b', 60_000)];
    waits.close();
    expect(await Promise.all(waiting)).toEqual([false, false]);
    expect(clock.pendingTimers()).toBe(0);
    expect(waits.closed).toBe(true);
    expect(await waits.wait('c', 10)).toBe(false);
  });

  it('endWait() ends one wait at once, true, and clears its timer; the others wait on', async () => {
    const clock = createManualClock(T0);
    const waits = new RetryWaits<string>(clock);
    const first = waits.wait('a', 60_000);
    let second: boolean | undefined;
    void waits.wait('b', 60_000).then((value) => (second = value));
    expect(waits.size).toBe(2);
    expect(waits.endWait('a')).toBe(true);
    expect(await first).toBe(true);
    expect(waits.endWait('a')).toBe(false);
    expect(waits.size).toBe(1);
    expect(clock.pendingTimers()).toBe(1);
    await Promise.resolve();
    expect(second).toBeUndefined();
    clock.advance(60_000);
    await Promise.resolve();
    expect(second).toBe(true);
    expect(waits.size).toBe(0);
  });
});
