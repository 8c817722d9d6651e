import { ConfigError, loadConfig } from './config.js';
import { helpText } from './help.js';
import { type ReferenceServer, startReferenceServer } from './index.js';
import { createServerLogger, pinoLogger } from './logging.js';

/** Exit code of a refused configuration or command line (1 is a failed start or shutdown). */
const EXIT_USAGE = 2;

/**
 * What closing takes at most once the grace period is over (the transports, Tilecast, the
 * store): past it, a step that hangs (a bug, a store that never answers) fails the
 * shutdown, exit code 1, rather than leaving the orchestrator to kill the process.
 */
const CLOSE_BOUND_MS = 5_000;
/** The longest delay a Node timer takes (a longer one fires at once). */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * `node examples/reference-server/dist/main.js` (what `npm start` runs, through `exec` so
 * that signals reach this process): serve the API until SIGTERM or SIGINT, then shut down
 * gracefully and exit 0.
 */
async function main(): Promise<void> {
  const args = process.argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(helpText());
    return;
  }
  if (args.length > 0) {
    console.error(`unknown argument ${args[0]}: the server takes only --help; it is configured by environment variables`);
    process.exitCode = EXIT_USAGE;
    return;
  }
  const { config, problems, warnings } = loadConfig(process.env);
  if (config === null) return refuse([...warnings, ...problems], problems.length);
  // JSON lines at LOG_LEVEL (a compact human format on a terminal): every event of the
  // server and the core, and one line per request.
  const logger = pinoLogger(createServerLogger(config.logLevel));
  for (const warning of warnings) logger.warn(warning);
  const server = await startReferenceServer(config, logger);
  logger.info('listening', { url: server.url, metrics_url: server.metricsUrl });
  printBanner(server);
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    // Ctrl-C under `npm start` reaches this process twice (from the terminal and from npm):
    // a repeated signal changes nothing, the shutdown is bounded by the grace period.
    if (stopping) return logger.info('shutdown: already under way', { signal });
    stopping = true;
    logger.info('shutdown: signal received', { signal });
    const bound = config.shutdownGraceMs + CLOSE_BOUND_MS;
    setTimeout(
      () => {
        logger.error('shutdown failed: not done within the grace period and the bound of closing', {
          grace_ms: config.shutdownGraceMs,
          bound_ms: CLOSE_BOUND_MS,
        });
        process.exit(1);
      },
      Math.min(bound, MAX_TIMER_MS),
    ).unref();
    server.shutdown().then(
      () => {
        logger.info('shutdown: done, exiting');
        process.exit(0);
      },
      (error: unknown) => {
        logger.error('shutdown failed', { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

/**
 * The start-up banner, for the person starting the server: on stderr, since stdout holds
 * only log lines (JSON when it is not a terminal). Tokens are printed only when both are
 * terminals: anything else may be a log pipeline, which must never hold a token.
 */
function printBanner(server: ReferenceServer): void {
  const terminal = process.stdout.isTTY === true && process.stderr.isTTY === true;
  const lines = [
    `Tilecast reference server listening on ${server.url}`,
    ...(server.metricsUrl === null ? [] : [`Metrics: ${server.metricsUrl}`]),
    terminal ? server.banner : server.bannerWithoutTokens,
  ];
  process.stderr.write(`${lines.join('\n')}\n`);
}

/** Prints the problems and the line that counts them; exit code 2, nothing started. */
function refuse(lines: string[], problems: number): void {
  for (const line of lines) console.error(line);
  console.error(
    `Tilecast reference server not started: ${problems === 1 ? 'a configuration problem' : `${problems} configuration problems`} (--help lists every setting)`,
  );
  process.exitCode = EXIT_USAGE;
}

main().catch((error: unknown) => {
  // A file a setting names that cannot be used (a key, a credentials file) is found only
  // once it is read: a configuration problem too, before anything was opened.
  if (error instanceof ConfigError) return refuse(error.problems, error.problems.length);
  console.error(`Tilecast reference server failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
