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
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import pg from 'pg';

const LOCAL_SERVER = process.env.TILECAST_TEST_POSTGRES || 'postgres://postgres@127.0.0.1:5432';
/**
 * Scratch databases are named per run (`tilecast_test_<pid>_<random>`), so two runs on one
 * machine (two checkouts, CI beside a developer) never share one; each run drops its own at
 * the end, and drops those left by runs whose process is gone (killed before teardown).
 */
const SCRATCH_PREFIX = 'tilecast_test_';
const SCRATCH_DATABASE = `${SCRATCH_PREFIX}${process.pid}_${randomBytes(4).toString('hex')}`;

export default async function setup(): Promise<() => Promise<void>> {
  const chromium = process.env.TILECAST_CHROMIUM || '/usr/bin/chromium';
  if (!existsSync(chromium)) console.log(`Browser test: skipped, needs chromium at ${chromium} (apt-get install -y chromium)`);
  const created = await findPostgres();
  buildApnsWorker();
  return async () => {
    if (created) await dropScratchDatabases((name) => name === SCRATCH_DATABASE);
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
async function findPostgres(): Promise<boolean> {
  if (process.env.DATABASE_URL) return false;
  const admin = new pg.Client({ connectionString: `${LOCAL_SERVER}/postgres`, connectionTimeoutMillis: 2_000 });
  try {
    await admin.connect();
  } catch {
    console.log(`PostgreSQL tests: no server at ${new URL(LOCAL_SERVER).host} and no DATABASE_URL; tests that need one skip (apt-get install postgresql)`);
    await admin.end().catch(() => {});
    return false;
  }
  try {
    await admin.query(`CREATE DATABASE ${SCRATCH_DATABASE}`);
  } finally {
    await admin.end().catch(() => {});
  }
  await dropScratchDatabases((name) => !processIsAlive(creatorPid(name)));
  process.env.DATABASE_URL = `${LOCAL_SERVER}/${SCRATCH_DATABASE}`;
  console.log(`PostgreSQL tests: using the local server (${process.env.DATABASE_URL})`);
  return true;
}

/** Drops the scratch databases whose name `which` picks (`WITH (FORCE)`: a leftover may still have sessions). */
async function dropScratchDatabases(which: (name: string) => boolean): Promise<void> {
  const admin = new pg.Client({ connectionString: `${LOCAL_SERVER}/postgres`, connectionTimeoutMillis: 2_000 });
  try {
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [SCRATCH_PREFIX]);
    for (const { datname } of rows) if (which(datname)) await admin.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`);
  } catch (error) {
    console.log(`PostgreSQL tests: could not drop a scratch database (${String(error)})`);
  } finally {
    await admin.end().catch(() => {});
  }
}

/** The pid in `tilecast_test_<pid>_<random>`, or NaN for another name (the fixed name of older runs). */
function creatorPid(name: string): number {
  const match = /^tilecast_test_([0-9]+)_[0-9a-f]+$/.exec(name);
  return match ? Number(match[1]) : Number.NaN;
}

/** Whether a process with this pid runs on this machine; NaN (not a per-run name) counts as gone. */
function processIsAlive(pid: number): boolean {
  if (!Number.isInteger(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
