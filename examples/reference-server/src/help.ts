import { wrap } from '@tilecast/cli/text';
import { SETTINGS } from './settings.js';

const WIDTH = 100;

/** What `--help` prints: usage, then every setting of {@link SETTINGS} with its default. */
export function helpText(): string {
  const settings = Object.entries(SETTINGS).flatMap(([name, setting]) => [
    `  ${name}${setting.default === null ? '' : ` (default ${setting.default})`}`,
    ...wrap(setting.description, WIDTH - 6).map((line) => `      ${line}`),
  ]);
  return [
    'Usage: node examples/reference-server/dist/main.js [--help | -h]',
    '',
    'The Tilecast reference server. It takes no other argument: it is configured by these',
    'environment variables, all checked at start. An empty value counts as unset. Each problem is',
    'printed on one line and the server exits with code 2 without starting. A TILECAST_* variable',
    'not listed here is reported (likely a typo) and ignored.',
    '',
    ...settings,
    '',
    'Probes: GET /healthz (liveness), GET /readyz (readiness: 503 while the store does not answer or',
    'during a shutdown; a delivery job older than TILECAST_DELIVERY_LATE_AFTER_MS is a "detail" line of',
    'its 200). SIGTERM or SIGINT shuts down gracefully (TILECAST_SHUTDOWN_GRACE_MS).',
    'Exit codes: 0 after a shutdown, 1 when the start or the shutdown failed, 2 for a configuration',
    'problem.',
    '',
  ].join('\n');
}
