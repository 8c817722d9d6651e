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

// The audience of a claiming write is optional in the contract (the suite checks it where
// returned; docs/decisions/0119-audience-in-the-write.md): this store returns it, from the
// write's own statement.
it('returns the audience read by a write that claims its job (activity and widget)', async () => {
  const storage = await create();
  const id = randomSchema('id');
  const hash = (n: number) => `${id}${n}`.padEnd(64, '0');
  const [acme, guest] = [`${id}-acme`, `${id}-guest`];
  await storage.upsertAccount({ id: acme, tokenHash: hash(1), subscription: 'active', activityQuota: 5 });
  await storage.upsertAccount({ id: guest, tokenHash: hash(2), subscription: 'active', activityQuota: 5 });
  await storage.upsertDevice({ id: `${id}-b`, accountId: acme, tokenHash: hash(3) });
  await storage.upsertDevice({ id: `${id}-a`, accountId: acme, tokenHash: hash(4) });
  await storage.upsertDevice({ id: `${id}-c`, accountId: guest, tokenHash: hash(5) });
  await storage.putActivity({ accountId: acme, slug: 'game', template: 'progress', dismissalDelayS: 0 });
  await storage.putWidget({ accountId: acme, slug: 'lights', template: 'switchboard', staleAfter: null, privacy: 'visible' });
  expect(await storage.shareWidget(acme, 'lights', `${id}-c`)).toBe(true);
  const claim = { instanceId: 'here', leaseMs: 30_000 };
  // A start (the transaction's statement), then an update of the live activity (the one-statement way),
  // at the suite's times (T0 on: a claim test's hours below it never see these jobs).
  const T0 = 1_800_000_000_000;
  for (const now of [T0, T0 + 1]) {
    const activity = await storage.applyActivityUpdate(acme, 'game', { state: 'ONGOING', content: {}, now, claim });
    expect(activity).toMatchObject({ ok: true, audience: [`${id}-a`, `${id}-b`] });
  }
  const widget = await storage.setWidgetContent(acme, 'lights', { content: {}, staleAfter: undefined, now: T0, claim });
  expect(widget).toMatchObject({ ok: true, audience: [`${id}-a`, `${id}-b`, `${id}-c`] });
  // An account without devices: [], not NULL.
  await storage.putActivity({ accountId: guest, slug: 'game', template: 'progress', dismissalDelayS: 0 });
  await storage.deleteDevice(`${id}-c`);
  const alone = await storage.applyActivityUpdate(guest, 'game', { state: 'ONGOING', content: {}, now: T0, claim });
  expect(alone).toMatchObject({ ok: true, audience: [] });
  await storage.close();
});
