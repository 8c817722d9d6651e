/**
 * Runs once before the test files and says, in one line each, what the machine lacks.
 * When `DATABASE_URL` is unset and a PostgreSQL server answers on the default local port
 * (trust auth, user `postgres`), the PostgreSQL tests use it through a scratch database
 * instead of skipping; otherwise they run on PGlite where they can and skip where they
 * need a real server. Without chromium the simulator's browser test skips.
 *
 * To see what a machine without them gets (no uninstalling): `TILECAST_TEST_POSTGRES` names
 * the server probed instead of the local one (e.g. `postgres://postgres@127.0.0.1:1`), and
 * `TILECAST_CHROMIUM` the browser binary (e.g. `/nonexistent`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { createScratchDatabase, dropLeftoverScratchDatabases, type ScratchDatabase } from './support/scratch-database.js';

const LOCAL_SERVER = process.env.TILECAST_TEST_POSTGRES || 'postgres://postgres@127.0.0.1:5432';

export default async function setup(): Promise<() => Promise<void>> {
  const chromium = process.env.TILECAST_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(chromium)) console.log(`Browser test: skipped, needs chromium at ${chromium} (apt-get install -y chromium)`);
  const scratch = await findPostgres();
  // The transports' connection workers run the core's push kit from its build: it first.
  buildWhenStale('@tilecast/core', 'core', 'dist/push/index.js', 'src/transport/push/');
  buildWhenStale('@tilecast/transport-apns', 'transport-apns', 'dist/connection-worker.js');
  buildWhenStale('@tilecast/transport-fcm', 'transport-fcm', 'dist/connection-worker.js');
  buildWhenStale('@tilecast/simulator', 'simulator', 'dist/browser/simulator.js');
  return async () => {
    await scratch?.drop().catch((error: unknown) => console.log(`PostgreSQL tests: could not drop ${scratch.name} (${String(error)})`));
  };
}

/**
 * Some things the tests run are build outputs, as JavaScript only: the transports' connection
 * workers (worker threads, running the core's push kit from its build; the tests run the
 * packages from their sources) and the simulator's page script (the browser test loads it).
 * Each is rebuilt here, once before the test files, when a source under `sources` is newer,
 * so that no test runs a stale build and no test builds while others run (`.ci/run` runs
 * the suite on three Node.js lines at once in one tree).
 */
function buildWhenStale(workspace: string, directory: string, output: string, sources = 'src/'): void {
  const root = new URL(`../packages/${directory}/`, import.meta.url);
  const built = new URL(output, root);
  const newest = newestSource(new URL(sources, root));
  if (existsSync(built) && statSync(built).mtimeMs >= newest) return;
  console.log(`${workspace}: building it (${output} is missing or older than src)`);
  execFileSync('npm', ['run', 'build', '--workspace', workspace], { stdio: 'ignore' });
}

/** The latest modification time of a TypeScript file under `directory`. */
function newestSource(directory: URL): number {
  return Math.max(
    0,
    ...readdirSync(directory, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => statSync(join(entry.parentPath, entry.name)).mtimeMs),
  );
}

/**
 * Points `DATABASE_URL` at a scratch database of this run's on the local server (see
 * support/scratch-database.ts), unless `DATABASE_URL` is set; null when none was made.
 */
async function findPostgres(): Promise<ScratchDatabase | null> {
  if (process.env.DATABASE_URL) return null;
  let scratch: ScratchDatabase;
  try {
    scratch = await createScratchDatabase(LOCAL_SERVER);
  } catch {
    console.log(`PostgreSQL tests: no server at ${new URL(LOCAL_SERVER).host} and no DATABASE_URL; tests that need one skip (apt-get install postgresql)`);
    return null;
  }
  await dropLeftoverScratchDatabases(LOCAL_SERVER).catch(() => {});
  process.env.DATABASE_URL = scratch.url;
  console.log(`PostgreSQL tests: using the local server (${scratch.url})`);
  return scratch;
}
