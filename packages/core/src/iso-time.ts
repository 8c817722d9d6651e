/** An instant as the service and every store format it (`updatedAt`, `occurred_at`). */
export function isoTime(ms: number): string {
  // Date's toISOString formats through C's printf, thousands of instructions for every
  // write that stamps a record: whole milliseconds from 1970 to 9999 are formatted here,
  // every other value by Date itself (its wider years, and its RangeError).
  if (!Number.isInteger(ms) || ms < 0 || ms > LAST_FOUR_DIGIT_YEAR_MS) return new Date(ms).toISOString();
  const millis = ms % 1000;
  const second = ms - millis;
  // Writes come in bursts within one second: its text (`2026-11-26T08:30:05.`) is made
  // once, and each call only appends its milliseconds.
  if (second !== lastSecond) {
    lastSecondText = secondText(second);
    lastSecond = second;
  }
  return lastSecondText + MILLIS_TEXT[millis]!;
}

/** `000Z` to `999Z`, made once: no number is turned into text per call. */
const MILLIS_TEXT = Array.from({ length: 1000 }, (_, millis) => `${threeDigits(millis)}Z`);

let lastSecond = -1;
let lastSecondText = '';

/** `YYYY-MM-DDTHH:MM:SS.` of a whole second (ms ≥ 0). */
function secondText(ms: number): string {
  const days = Math.floor(ms / DAY_MS);
  let rest = (ms - days * DAY_MS) / 1000;
  const seconds = rest % 60;
  rest = (rest - seconds) / 60;
  const minutes = rest % 60;
  const hours = (rest - minutes) / 60;
  const { year, month, day } = civilDate(days);
  // Joined, which makes one flat string: with the milliseconds appended, each result is
  // then two parts rather than a chain of thirteen to copy when it is read.
  return [year, '-', twoDigits(month), '-', twoDigits(day), 'T', twoDigits(hours), ':', twoDigits(minutes), ':', twoDigits(seconds), '.'].join('');
}

const DAY_MS = 86_400_000;
/** 9999-12-31T23:59:59.999Z: the last instant whose year has four digits. */
const LAST_FOUR_DIGIT_YEAR_MS = 253_402_300_799_999;

/**
 * The proleptic Gregorian date `days` days after 1970-01-01 (days ≥ 0): H. Hinnant's
 * `civil_from_days`, on years that start on 1 March so that a leap day ends its year.
 */
function civilDate(days: number): { year: number; month: number; day: number } {
  const shifted = days + 719_468; // days from 0000-03-01
  const era = Math.floor(shifted / 146_097); // 400-year cycles
  const dayOfEra = shifted - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  return { year: yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : `${n}`;
}

function threeDigits(n: number): string {
  return n < 10 ? `00${n}` : n < 100 ? `0${n}` : `${n}`;
}
