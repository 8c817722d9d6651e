/**
 * `new Date(ms).toISOString()`, faster for the instants a service formats (for stores
 * too: `updatedAt`). Each press formats two timestamps, and at a thousand presses a
 * second most of them fall in one of the last two seconds seen: the text up to the
 * second is kept for those two, and only the milliseconds are added. Updates under load
 * often share a millisecond: the last answer is kept as well.
 */
export function isoTime(ms: number): string {
  if (ms === lastMs) return lastText;
  if (!Number.isInteger(ms)) return new Date(ms).toISOString(); // fractions, NaN: Date's own rules
  const second = Math.floor(ms / 1000) * 1000;
  let text: string;
  if (second === recent.second) text = recent.prefix + MILLIS[ms - second]!;
  else if (second === older.second) text = older.prefix + MILLIS[ms - second]!;
  else text = newSecond(ms, second);
  lastMs = ms;
  lastText = text;
  return text;
}

function newSecond(ms: number, second: number): string {
  const text = new Date(ms).toISOString();
  // The oldest entry makes way; `…:SS.mmmZ` minus the last 5 characters is the second's text.
  older = recent;
  recent = { second, prefix: text.slice(0, -5) };
  return text;
}

interface SecondText {
  second: number;
  prefix: string;
}

let lastMs = Number.NaN;
let lastText = '';
let recent: SecondText = { second: Number.NaN, prefix: '' };
let older: SecondText = { second: Number.NaN, prefix: '' };

/** `.000Z` … `.999Z`. */
const MILLIS = Array.from({ length: 1000 }, (_, i) => `.${String(i).padStart(3, '0')}Z`);
