import { runStorageConformance } from '@tilecast/storage-conformance';
import { type PostgresStorage, createPostgresStorage, migrate } from '@tilecast/storage-postgres';
import { afterAll, expect, it } from 'vitest';
import { type Backend, DATABASE_URL, NEEDS_SERVER, openBackend, randomSchema } from './support.js';

// One fresh schema for the whole run, dropped at the end. Against a real server (DATABASE_URL)
// every store opens its own pool from the URL and the peer is a second store on a second
// pool, so the concurrency tests really race across connections, as two instances would.
// Without a server the suite runs on PGlite, one in-process connection shared by all stores.
const schema = randomSchema('conf');
let backend: Promise<Backend> | undefined;

const ready = (): Promise<Backend> =>
  (backend ??= openBackend().then(async (opened) => {
    await migrate(opened.admin, { schema });
    return opened;
  }));

async function create(): Promise<PostgresStorage> {
  const opened = await ready();
  return opened.kind === 'postgres'
    ? createPostgresStorage({ connectionString: DATABASE_URL!, schema })
    : createPostgresStorage({ pool: opened.admin, schema });
}

afterAll(async () => {
  if (!backend) return;
  const opened = await backend;
  await opened.dropSchema(schema);
  await opened.end();
});

runStorageConformance({
  name: DATABASE_URL ? 'postgres' : 'postgres (PGlite)',
  create,
  createPeer: DATABASE_URL ? () => create() : undefined,
  skip: DATABASE_URL
    ? {}
    : {
        activityQuota: `concurrent starts across two connections; ${NEEDS_SERVER}`,
      },
});

// `countEvents` is optional in the contract (the suite checks it where present): this store has it.
it('has the optional countEvents (the event-log size of metrics)', async () => {
  const storage = await create();
  expect(typeof storage.countEvents).toBe('function');
  await storage.close();
});
