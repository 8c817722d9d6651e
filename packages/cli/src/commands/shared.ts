import type { ArgumentSpec } from '../command.js';
import { usageError } from '../errors.js';

export const ACCOUNT: ArgumentSpec = { name: 'account', help: 'account id (1-64 characters of A-Z a-z 0-9 . _ ~ -, starting with a letter or digit)' };
export const SLUG: ArgumentSpec = { name: 'slug', help: 'slug, the name in the URL (same characters as an account id)' };
export const DEVICE: ArgumentSpec = { name: 'device', help: 'device id (same characters as an account id)' };

/** A whole number of the command line (`--quota 3`); the management API checks its range. */
export function wholeNumber(value: string, what: string): number {
  if (!/^\d{1,15}$/.test(value)) throw usageError(`${what} must be a whole number, got "${value}"`);
  return Number(value);
}

/** A token printed by the command that created it: the only time it can be read. */
export const shownOnce = (label: string, token: string): string => `${label} (shown once, keep it now): ${token}`;

/**
 * Left-aligned columns, two spaces apart (the last one unpadded). Control characters become
 * spaces: a cell may hold text from elsewhere (a push service's reason), and a line break
 * in it would break the table.
 */
export function table(header: string[], rows: string[][]): string {
  const clean = rows.map((row) => row.map((cell) => cell.replace(/\p{Cc}/gu, ' ')));
  const widths = header.map((title, i) => Math.max(title.length, ...clean.map((row) => row[i]!.length)));
  return [header, ...clean].map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')).join('\n');
}
