import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/iso-time.js';

const LAST_FOUR_DIGIT_YEAR_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

describe('isoTime', () => {
  it('formats as Date#toISOString: any whole millisecond of 1970–9999', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: LAST_FOUR_DIGIT_YEAR_MS }), (ms) => {
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }),
      { numRuns: 20_000 },
    );
  });

  it('formats the edges of days, months, leap years and centuries as Date does', () => {
    const instants = [0, 1, 999, 1000, 59_999, 86_399_999, 86_400_000, LAST_FOUR_DIGIT_YEAR_MS];
    for (const year of [1970, 1972, 1999, 2000, 2024, 2100, 2400, 9999]) {
      for (const [month, day] of [
        [0, 1],
        [1, 28],
        [1, 29],
        [2, 1],
        [11, 31],
      ] as const) {
        const ms = Date.UTC(year, month, day);
        instants.push(ms, ms - 1, ms + 86_399_999);
      }
    }
    for (const ms of instants.filter((at) => at >= 0 && at <= LAST_FOUR_DIGIT_YEAR_MS)) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });

  it("leaves every other value to Date: years beyond 9999 or before 1970, fractions, and Date's RangeError", () => {
    for (const ms of [-1, -62_198_755_200_001, LAST_FOUR_DIGIT_YEAR_MS + 1, 8.64e15, 1.5, 1_700_000_000_000.25]) {
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(8.64e15 + 1)).toThrow(RangeError);
  });
});
