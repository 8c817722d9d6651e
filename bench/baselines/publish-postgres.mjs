// Baseline for D1: bare node:http that reads the body, validates the content with the
// same valibot schema, and stores it with one INSERT … ON CONFLICT DO UPDATE through pg
// (default pool, durable commits).
import pg from 'pg';
import * as v from 'valibot';
import { widgetContentSchemas } from '@tilecast/core/schemas';
import { readBody, serve } from '../lib/serve.mjs';
import { widgetAnswer } from '../lib/spec-echo.mjs';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
await pool.query('DROP TABLE IF EXISTS bench_widgets');
await pool.query('CREATE TABLE bench_widgets (slug text PRIMARY KEY, content json NOT NULL, updated_at timestamptz NOT NULL)');

await serve(async (req, res) => {
  const body = JSON.parse(await readBody(req));
  const result = v.safeParse(widgetContentSchemas.switchboard, body.content, { abortEarly: false, abortPipeEarly: true });
  if (!result.success) return void res.writeHead(422, { 'content-type': 'application/json' }).end('{"detail":"invalid"}');
  await pool.query(
    'INSERT INTO bench_widgets (slug, content, updated_at) VALUES ($1, $2, now()) ON CONFLICT (slug) DO UPDATE SET content = EXCLUDED.content, updated_at = EXCLUDED.updated_at',
    [req.url, JSON.stringify(result.output)],
  );
  const payload = JSON.stringify(widgetAnswer(result.output));
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }).end(payload);
});
