/**
 * The reference server's observability settings (metrics and logs), read apart from the
 * rest of the configuration: `TILECAST_METRICS`, `TILECAST_METRICS_PORT`, `LOG_LEVEL`.
 */

/** Where `GET /metrics` is served: nowhere, on the API's port, or on a port of its own. */
export type MetricsConfig = { serve: 'off' } | { serve: 'main' } | { serve: 'port'; port: number };

/** pino's levels, from the most to the least verbose, and `silent`. */
export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/**
 * `TILECAST_METRICS=1` serves `/metrics` on the main port; `TILECAST_METRICS_PORT=n` serves
 * it on port `n` instead (and not on the main port), with or without `TILECAST_METRICS`.
 */
export function readMetricsConfig(env: NodeJS.ProcessEnv): MetricsConfig {
  const flag = env.TILECAST_METRICS ?? '';
  if (flag !== '' && flag !== '0' && flag !== '1') throw new Error(`TILECAST_METRICS must be 1 (on) or 0 (off), got "${flag}"`);
  const portText = env.TILECAST_METRICS_PORT ?? '';
  if (portText !== '') {
    const port = Number(portText);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`TILECAST_METRICS_PORT must be an integer 0-65535, got "${portText}"`);
    if (flag === '0') throw new Error('TILECAST_METRICS_PORT is set but TILECAST_METRICS=0 turns metrics off: unset one of them');
    return { serve: 'port', port };
  }
  return flag === '1' ? { serve: 'main' } : { serve: 'off' };
}

/** `LOG_LEVEL`, default `info`. */
export function readLogLevel(env: NodeJS.ProcessEnv): LogLevel {
  const value = env.LOG_LEVEL ?? '';
  if (value === '') return 'info';
  const level = LOG_LEVELS.find((known) => known === value.toLowerCase());
  if (level === undefined) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${value}"`);
  return level;
}
