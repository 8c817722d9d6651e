import { accessSync, constants, statSync } from 'node:fs';
import { isIP } from 'node:net';

/**
 * Turns an environment variable's text (never empty: an empty value counts as unset) into
 * its value, or throws a {@link SettingProblem} whose message is the whole line to print.
 */
export type Parse<T> = (raw: string, name: string) => T;

/** One problem with one setting: its message is a complete line that names the setting. */
export class SettingProblem extends Error {}

/** The longest delay Node's timers keep (2^31 - 1 ms): a longer one fires after 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

/** A whole number from `min` to `max` (digits only: no sign, exponent, hex or spaces). */
export function integer(min: number, max: number): Parse<number> {
  return (raw, name) => {
    const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= min && value <= max)) throw new SettingProblem(`${name} must be an integer ${min}-${max}, got "${raw}"`);
    return value;
  };
}

/** A duration in milliseconds: at least 1, at most what a Node timer can wait. */
export function milliseconds(): Parse<number> {
  return (raw, name) => {
    const value = /^[0-9]+$/.test(raw) ? Number(raw) : Number.NaN;
    if (!(value >= 1 && value <= MAX_TIMER_MS)) {
      throw new SettingProblem(`${name} must be a positive integer (milliseconds, at most ${MAX_TIMER_MS}), got "${raw}"`);
    }
    return value;
  };
}

/** `1` on, `0` off: anything else (`yes`, `true`) is refused rather than read as off. */
export function flag(): Parse<boolean> {
  return (raw, name) => {
    if (raw === '1') return true;
    if (raw === '0') return false;
    throw new SettingProblem(`${name} must be 1 (on) or 0 (off), got "${raw}"`);
  };
}

/** Free text matching `pattern`; `expected` says what that means in words. */
export function text(pattern: RegExp, expected: string): Parse<string> {
  return (raw, name) => {
    if (!pattern.test(raw)) throw new SettingProblem(`${name} must be ${expected}, got "${raw}"`);
    return raw;
  };
}

/** One of a few words, such as a log level. */
export function oneOf<const T extends string>(values: readonly T[]): Parse<T> {
  return (raw, name) => {
    if (!(values as readonly string[]).includes(raw)) throw new SettingProblem(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
    return raw as T;
  };
}

/** An address to listen on: an IP address or a host name, without a port or a scheme. */
export function host(): Parse<string> {
  return (raw, name) => {
    if (isIP(raw) === 0 && !/^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$/.test(raw)) {
      throw new SettingProblem(`${name} must be an IP address or a host name (no port, no scheme), got "${raw}"`);
    }
    return raw;
  };
}

/**
 * A PostgreSQL connection URL. The value is never echoed: it may hold a password. Without
 * this check `pg` reads `not-a-url` as a host name and fails later with `ENOTFOUND`.
 */
export function postgresUrl(): Parse<string> {
  return (raw, name) => {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new SettingProblem(`${name} is not a URL: expected postgres://user:password@host:5432/database`);
    }
    if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
      throw new SettingProblem(`${name} must be a postgres:// or postgresql:// URL, got a ${url.protocol}// URL`);
    }
    return raw;
  };
}

/** An `https://host[:port]` origin with no path; a trailing `/` is dropped. */
export function httpsOrigin(): Parse<string> {
  return (raw, name) => {
    if (!/^https:\/\/[^/?#]+\/?$/.test(raw)) throw new SettingProblem(`${name} must be an https origin such as https://127.0.0.1:8443, got "${raw}"`);
    return raw.replace(/\/$/, '');
  };
}

/** The path of a file this process can read, checked at start so a typo stops it with the setting's name. */
export function readableFile(): Parse<string> {
  return (raw, name) => {
    try {
      const stats = statSync(raw);
      if (!stats.isFile()) throw new SettingProblem(`${name} must name a file, ${raw} is ${stats.isDirectory() ? 'a directory' : 'not a regular file'}`);
      accessSync(raw, constants.R_OK);
    } catch (error) {
      if (error instanceof SettingProblem) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      const reason = code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code ?? error);
      throw new SettingProblem(`${name} names a file that cannot be read: ${raw} (${reason})`);
    }
    return raw;
  };
}
