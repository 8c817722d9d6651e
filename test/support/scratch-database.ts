/**
 * Scratch databases for a test run, on a PostgreSQL server reached as its admin user. Each
 * run gets one of its own, named `tilecast_test_<pid>_<random>`, so two runs on one machine
 * (two checkouts, CI beside a developer) never share one. A run drops its own at the end,
 * and at the start drops those left by runs whose process is gone (killed before teardown).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

const PREFIX = 'tilecast_test_';
const NAME = /^tilecast_test_([0-9]+)_[0-9a-f]{8}$/;

export interface ScratchDatabase {
  name: string;
  /** The server URL with this database. */
  url: string;
  drop(): Promise<void>;
}

/** Creates a new scratch database on `server` (`postgres://user@host:port`); throws when the server does not answer. */
export async function createScratchDatabase(server: string, pid = process.pid): Promise<ScratchDatabase> {
  const name = `${PREFIX}${pid}_${randomBytes(4).toString('hex')}`;
  await withAdmin(server, (admin) => admin.query(`CREATE DATABASE "${name}"`));
  const drop = async () => {
    await dropScratchDatabases(server, (other) => other === name);
  };
  return { name, url: `${server}/${name}`, drop };
}

/** Drops the scratch databases of runs whose process no longer runs on this machine. */
export function dropLeftoverScratchDatabases(server: string): Promise<string[]> {
  return dropScratchDatabases(server, (name) => !processIsAlive(creatorPid(name)));
}

/** Lists the scratch databases on `server`. */
export function listScratchDatabases(server: string): Promise<string[]> {
  return withAdmin(server, async (admin) => {
    const { rows } = await admin.query<{ datname: string }>('SELECT datname FROM pg_database WHERE starts_with(datname, $1)', [PREFIX]);
    return rows.map((row) => row.datname).filter((name) => NAME.test(name));
  });
}

/** Drops the scratch databases `which` picks (`WITH (FORCE)`: a leftover may still have sessions); returns their names. */
async function dropScratchDatabases(server: string, which: (name: string) => boolean): Promise<string[]> {
  const doomed = (await listScratchDatabases(server)).filter(which);
  await withAdmin(server, async (admin) => {
    for (const name of doomed) await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  });
  return doomed;
}

async function withAdmin<T>(server: string, use: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: `${server}/postgres`, connectionTimeoutMillis: 2_000 });
  try {
    await admin.connect();
    return await use(admin);
  } finally {
    await admin.end().catch(() => {});
  }
}

/** The pid in a scratch database's name. */
function creatorPid(name: string): number {
  return Number(NAME.exec(name)![1]);
}

/** Whether a process with this pid runs on this machine (EPERM: it runs, as another user). */
function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
