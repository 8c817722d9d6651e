import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../../../../test/support/manual-clock.js';
import { Deadlines } from '../../../src/transport/push/deadlines.js';

describe('request deadlines of a connection', () => {
  it('times each request out at its own deadline, with one timer at a time', () => {
    const clock = createManualClock();
    const deadlines = new Deadlines(clock, 1000);
    const timedOut: string[] = [];
    deadlines.add(() => timedOut.push('a'));
    clock.advance(300);
    const b = deadlines.add(() => timedOut.push('b'));
    clock.advance(200);
    deadlines.add(() => timedOut.push('c'));
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(499);
    expect(timedOut).toEqual([]);
    clock.advance(1);
    expect(timedOut).toEqual(['a']);
    deadlines.remove(b); // answered in time
    clock.advance(499);
    expect(timedOut).toEqual(['a']);
    clock.advance(1);
    expect(timedOut).toEqual(['a', 'c']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('leaves no timer once every request left', () => {
    const clock = createManualClock();
    const deadlines = new Deadlines(clock, 1000);
    const a = deadlines.add(() => {
      throw new Error('not due');
    });
    const b = deadlines.add(() => {
      throw new Error('not due');
    });
    deadlines.remove(a);
    expect(clock.pendingTimers()).toBe(1);
    deadlines.remove(b);
    expect(clock.pendingTimers()).toBe(0);
    clock.advance(5000);
  });
});
