import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/iso-time.js';

describe('isoTime', () => {
  it('formats exactly as Date#toISOString, across seconds, minutes, days and years', () => {
    const starts = [Date.UTC(2026, 10, 23, 23, 59, 58, 990), Date.UTC(1999, 11, 31, 23, 59, 59, 0), 0, -1_500, Date.UTC(10_000, 0, 1)];
    for (const start of starts) {
      for (let ms = start; ms < start + 3_000; ms += 7) {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
        expect(isoTime(ms)).toBe(new Date(ms).toISOString()); // the same millisecond again
      }
    }
  });

  it('stays exact when instants alternate between seconds (an event and its expiry)', () => {
    const now = Date.UTC(2026, 10, 23, 12, 0, 0, 0);
    for (let i = 0; i < 2_000; i++) {
      const ms = now + i * 3;
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      expect(isoTime(ms + 5_000)).toBe(new Date(ms + 5_000).toISOString());
      expect(isoTime(ms - 60_000)).toBe(new Date(ms - 60_000).toISOString());
    }
  });

  it("keeps Date's answers for fractions and its error for invalid instants", () => {
    expect(isoTime(1_000.6)).toBe(new Date(1_000.6).toISOString());
    expect(isoTime(1_000)).toBe('1970-01-01T00:00:01.000Z');
    expect(isoTime(1_000.4)).toBe(new Date(1_000.4).toISOString());
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(9e15)).toThrow(RangeError);
  });
});
