import type { Logger, Observer } from '@tilecast/core';
import pino, { type DestinationStream, type Logger as PinoLogger } from 'pino';
import type { LogLevel } from './observability-config.js';

/**
 * The core's `Logger` on a pino logger: `info(message, fields)` becomes
 * `pino.info(fields, message)`, one JSON line with the fields at the top level.
 */
export function pinoLogger(target: PinoLogger): Logger {
  return {
    info: (message, fields) => target.info(fields ?? {}, message),
    warn: (message, fields) => target.warn(fields ?? {}, message),
    error: (message, fields) => target.error(fields ?? {}, message),
  };
}

/**
 * One log line per request, from the core's request observation: method, route pattern,
 * status, duration and account id. The observation carries nothing else (no path, no
 * header, no body, no token), so neither does the line.
 */
export function requestLogObserver(logger: Logger): Observer {
  return {
    requestFinished({ method, route, status, durationMs, accountId }) {
      logger.info('request', { method, route, status, duration_ms: Math.round(durationMs * 1000) / 1000, account: accountId });
    },
  };
}

/**
 * The reference server's pino logger at `level`: JSON lines on stdout, or, when stdout is a
 * terminal, the same events in a compact human format (`compactLine`).
 */
export function createServerLogger(level: LogLevel, stdout: NodeJS.WriteStream = process.stdout): PinoLogger {
  const options = { level };
  if (!stdout.isTTY) return pino(options, stdout);
  const terminal: DestinationStream = { write: (line: string) => void stdout.write(compactLine(line)) };
  return pino(options, terminal);
}

const LEVEL_NAMES: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };

/** Fields every line has, left out of the human format's `key=value` list. */
const BASE_FIELDS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

/** One pino JSON line as `12:34:56.789 INFO  request method=PATCH route=/widget/{slug} status=200`. */
export function compactLine(line: string): string {
  let record: Record<string, unknown>;
  try {
    record = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = typeof record.time === 'number' ? new Date(record.time).toISOString().slice(11, 23) : '';
  const level = (LEVEL_NAMES[record.level as number] ?? String(record.level)).padEnd(5);
  const fields = Object.entries(record)
    .filter(([key]) => !BASE_FIELDS.has(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return `${[time, level, String(record.msg ?? ''), ...fields].join(' ')}\n`;
}
