/**
 * The reference server's observability settings (metrics and logs): the types behind
 * `TILECAST_METRICS`, `TILECAST_METRICS_PORT` and `LOG_LEVEL` of settings.ts.
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
export function metricsConfig(onMainPort: boolean, port: number | null): MetricsConfig {
  if (port !== null) return { serve: 'port', port };
  return onMainPort ? { serve: 'main' } : { serve: 'off' };
}

/** A port for metrics that `TILECAST_METRICS=0` turns off says two opposite things. */
export function metricsProblems(env: NodeJS.ProcessEnv): string[] {
  if ((env.TILECAST_METRICS_PORT ?? '') !== '' && env.TILECAST_METRICS === '0') {
    return ['TILECAST_METRICS_PORT is set but TILECAST_METRICS=0 turns metrics off: unset one of them'];
  }
  return [];
}
