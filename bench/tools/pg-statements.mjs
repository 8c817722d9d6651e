// Diagnostic: D1's statements alone, at the store: Tilecast's widget write with its job against the baseline's upsert.
import pg from 'pg';
import { createTilecast, silentLogger } from '@tilecast/core';
import { createPostgresStorage, migrate } from '@tilecast/storage-postgres';
import { commandLine } from '../lib/cli.mjs';
import { switchboardContent } from '../lib/payloads.mjs';
import { median, round } from '../lib/stats.mjs';

const { values } = commandLine(
  `
Usage: node bench/tools/pg-statements.mjs [--rounds N] [--round-ms MS] [--writers N] [--rows one|own]

What one PATCH /widget costs PostgreSQL, without HTTP and without Tilecast's writing
together of concurrent updates of one widget (decision 0116): N writers (default 10, the
pool's size) each run one statement after the other for a round, taking turns round by
round between

  baseline  D1's baseline: INSERT ... ON CONFLICT DO UPDATE of the content (one row)
  tilecast  the PostgreSQL store's setWidgetContent: the widget's content and its delivery
            job in one statement, guarded by the account's token hash
  content   the same statement without the job (what a write cost before delivery jobs)

and prints each one's statements per second (median of the rounds) and its ratio to the
baseline's. --rows one: every writer writes the same row (D1's load: the writes queue on
its lock); --rows own (default): each writer its own row (what one statement costs).
Needs PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test); uses a
schema of its own, dropped at the end.

  --rounds N     rounds per statement (default 5)
  --round-ms MS  length of a round (default 2000)
`,
  { rounds: { type: 'string' }, 'round-ms': { type: 'string' }, writers: { type: 'string' }, rows: { type: 'string' } },
);
const rounds = Number(values.rounds ?? 5);
const roundMs = Number(values['round-ms'] ?? 2000);
const writers = Number(values.writers ?? 10);
const rows = values.rows ?? 'own';
if (![rounds, roundMs, writers].every((n) => Number.isInteger(n) && n > 0) || !['one', 'own'].includes(rows)) {
  console.error('--rounds, --round-ms and --writers take a positive whole number; --rows one or own');
  process.exit(2);
}

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test', max: writers });
const schema = `bench_statements_${process.pid}`;
await migrate(pool, { schema });
try {
  const storage = createPostgresStorage({ pool, schema, listen: false });
  const tilecast = createTilecast({ storage, logger: silentLogger, purgeIntervalMs: 0, delivery: { pollMs: 0 } });
  await tilecast.management.createAccount({ id: 'bench' });
  const slugs = Array.from({ length: rows === 'one' ? 1 : writers }, (_, i) => `w${i}`);
  for (const slug of slugs) await tilecast.management.createWidget({ account: 'bench', slug, template: 'switchboard' });
  await tilecast.close();
  const { tokenHash } = await storage.getAccount('bench');
  await pool.query(`CREATE TABLE ${schema}.bench_widgets (slug text PRIMARY KEY, content json NOT NULL, updated_at timestamptz NOT NULL)`);

  const content = switchboardContent();
  const json = JSON.stringify(content);
  const slugOf = (writer) => slugs[writer % slugs.length];
  const statements = {
    baseline: (writer) =>
      pool.query(
        `INSERT INTO ${schema}.bench_widgets (slug, content, updated_at) VALUES ($1, $2, now()) ON CONFLICT (slug) DO UPDATE SET content = EXCLUDED.content, updated_at = EXCLUDED.updated_at`,
        [slugOf(writer), json],
      ),
    tilecast: (writer) =>
      storage.setWidgetContent('bench', slugOf(writer), { content, staleAfter: undefined, now: Date.now(), guard: { tokenHash, template: 'switchboard' } }),
    content: (writer) =>
      pool.query({
        name: 'bench_content_only',
        text: `UPDATE ${schema}.widgets SET content = $3::json, updated_at = $4 WHERE account_id = $1 AND slug = $2 AND template = 'switchboard'
               AND EXISTS (SELECT 1 FROM ${schema}.accounts a WHERE a.id = $1 AND a.token_hash = $5 AND a.subscription = 'active')
               RETURNING account_id, slug, template, stale_after, privacy, updated_at`,
        values: ['bench', slugOf(writer), json, Date.now(), tokenHash],
      }),
  };
  const perSecond = Object.fromEntries(Object.keys(statements).map((name) => [name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const [name, run] of Object.entries(statements)) {
      let done = 0;
      const end = Date.now() + roundMs;
      await Promise.all(
        Array.from({ length: writers }, async (_, writer) => {
          while (Date.now() < end) {
            await run(writer);
            done += 1;
          }
        }),
      );
      perSecond[name].push(done / (roundMs / 1000));
    }
  }
  const base = median(perSecond.baseline);
  console.log(
    `${writers} writers, ${rows === 'one' ? 'one row' : 'a row each'}, ${rounds} rounds of ${roundMs} ms (median statements/s, ratio to the baseline)`,
  );
  for (const [name, figures] of Object.entries(perSecond)) {
    const m = median(figures);
    console.log(`  ${name.padEnd(9)} ${String(round(m, 0)).padStart(7)}  ${round((m / base) * 100, 1)} %`);
  }
} finally {
  await pool.query(`DROP SCHEMA ${schema} CASCADE`);
  await pool.end();
}
