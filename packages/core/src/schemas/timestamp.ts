/**
 * RFC 3339 timestamps that include an offset (docs/contract/templates.md#widget-timestamps). Parsed by hand rather than with `Date.parse`, which accepts many other forms
 * and silently rolls impossible dates (February 30) over.
 */

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?(?:([Zz])|([+-])(\d{2}):(\d{2}))?$/;

interface ParsedTimestamp {
  /** Milliseconds since the epoch, with sub-millisecond digits as a fraction. */
  instant: number;
  hasOffset: boolean;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  return month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1]!;
}

/** `Date.UTC` maps years 0..99 to 1900..1999; set the year afterwards to avoid that. */
function utcMillis(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  date.setUTCFullYear(year);
  return date.getTime();
}

/** Parses an RFC 3339 date-time; `undefined` when it is not one (offset optional here). */
export function parseTimestamp(text: string): ParsedTimestamp | undefined {
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  // Leap seconds (:60) are refused, like pydantic does.
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const fraction = match[7] === undefined ? 0 : Number(`0${match[7]}`) * 1000;
  let offsetMinutes = 0;
  if (match[9] !== undefined) {
    const offsetHours = Number(match[10]);
    const offsetMins = Number(match[11]);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const utc = utcMillis(year, month, day, hour, minute, second);
  return { instant: utc - offsetMinutes * 60_000 + fraction, hasOffset: match[8] !== undefined || match[9] !== undefined };
}

export function isDateTime(text: string): boolean {
  return parseTimestamp(text) !== undefined;
}

export function hasOffset(text: string): boolean {
  return parseTimestamp(text)?.hasOffset === true;
}
