/**
 * Issue 32 item 12: a test run's PostgreSQL scratch database is its own, so two runs on one
 * machine never collide (it was always `tilecast_test`).
 */
import { describe, expect, it } from 'vitest';
import { createScratchDatabase, dropLeftoverScratchDatabases, listScratchDatabases } from './scratch-database.js';

const SERVER = process.env.TILECAST_TEST_POSTGRES || 'postgres://postgres@127.0.0.1:5432';
const hasServer = process.env.DATABASE_URL?.startsWith(`${SERVER}/`) === true;

describe.skipIf(!hasServer)('scratch databases of test runs (PostgreSQL)', () => {
  it('this run uses a database of its own, named for it', () => {
    const name = new URL(process.env.DATABASE_URL!).pathname.slice(1);
    expect(name).toMatch(/^tilecast_test_[0-9]+_[0-9a-f]{8}$/);
  });

  it('two runs at once get two databases; each drops only its own', async () => {
    const [a, b] = await Promise.all([createScratchDatabase(SERVER), createScratchDatabase(SERVER)]);
    expect(a.name).not.toBe(b.name);
    expect(await listScratchDatabases(SERVER)).toEqual(expect.arrayContaining([a.name, b.name]));
    await a.drop();
    const left = await listScratchDatabases(SERVER);
    expect(left).not.toContain(a.name);
    expect(left).toContain(b.name);
    await b.drop();
  });

  it("a killed run's database is dropped by the next run; a live run's is kept", async () => {
    const deadPid = 2 ** 22 + 1; // above Linux's pid_max: no process has it
    const leftover = await createScratchDatabase(SERVER, deadPid);
    const live = await createScratchDatabase(SERVER);
    expect(await dropLeftoverScratchDatabases(SERVER)).toContain(leftover.name);
    const left = await listScratchDatabases(SERVER);
    expect(left).not.toContain(leftover.name);
    expect(left).toContain(live.name);
    await live.drop();
  });
});

if (!hasServer) {
  describe('scratch databases of test runs', () => {
    it.skip('all tests skipped: needs a real PostgreSQL server on 127.0.0.1:5432 (the local one test/global-setup.ts finds)', () => {});
  });
}
