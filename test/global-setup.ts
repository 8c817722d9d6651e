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
import { createScratchDatabase, dropLeftoverScratchDatabases, type ScratchDatabase } from './support/scratch-database.js';

const LOCAL_SERVER = process.env.TILECAST_TEST_POSTGRES || 'postgres://postgres@127.0.0.1:5432';

export default async function setup(): Promise<() => Promise<void>> {
  const chromium = process.env.TILECAST_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(chromium)) console.log(`Browser test: skipped, needs chromium at ${chromium} (apt-get install -y chromium)`);
  const scratch = await findPostgres();
  buildApnsWorker();
  return async () => {
    await scratch?.drop().catch((error: unknown) => console.log(`PostgreSQL tests: could not drop ${scratch.name} (${String(error)})`));
  };
}

/**
 * transport-apns runs its connections in a worker thread, which runs JavaScript only: the
 * tests, which run the package from its sources, start the built worker
 * (dist/connection-worker.js), so it is rebuilt here when a source is newer.
 */
function buildApnsWorker(): void {
  const root = new URL('../packages/transport-apns/', import.meta.url);
  const built = new URL('dist/connection-worker.js', root);
  const sources = new URL('src/', root);
  const newest = Math.max(
    ...readdirSync(sources)
      .filter((name) => name.endsWith('.ts'))
      .map((name) => statSync(new URL(name, sources)).mtimeMs),
  );
  if (existsSync(built) && statSync(built).mtimeMs >= newest) return;
  console.log('transport-apns: building its connection worker (dist is missing or older than src)');
  execFileSync('npm', ['run', 'build', '--workspace', '@tilecast/transport-apns'], { stdio: 'ignore' });
}

/** Points `DATABASE_URL` at a new scratch database on the local server; true when one was created. */
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
