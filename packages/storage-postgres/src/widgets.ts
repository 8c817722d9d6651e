import { isoTime, type WidgetStore, type WidgetRecord } from '@tilecast/core/storage';
import { type Ctx, errorCode, num, prepared, toJson } from './db.js';
import { WRITTEN_JOB_COLUMNS, claimValues, withAudience, writeJob, writtenAudience, writtenJob, type WrittenJobColumns } from './delivery-jobs.js';
import { credentialHolds, explainRefusal } from './guard.js';

interface WidgetRow {
  account_id: string;
  slug: string;
  template: string;
  stale_after: number | null;
  privacy: WidgetRecord['privacy'];
  content: unknown;
  updated_at: string | number | null;
}

const COLUMNS = 'account_id, slug, template, stale_after, privacy, content, updated_at';
/** Every column but the content (a write's caller already has that). */
const WRITTEN_COLUMNS = 'account_id, slug, template, stale_after, privacy, updated_at';

/** What `setWidgetContent` reads back: the widget but its content, and its new job's generation, due time and lease. */
interface WrittenRow extends Omit<WidgetRow, 'content'>, WrittenJobColumns {}

const toWidget = (row: WidgetRow): WidgetRecord => ({
  accountId: row.account_id,
  slug: row.slug,
  template: row.template,
  staleAfter: row.stale_after === null ? null : num(row.stale_after),
  privacy: row.privacy,
  content: row.content ?? null,
  updatedAt: row.updated_at === null ? null : isoTime(num(row.updated_at)),
});

export function widgetMethods({ db, t }: Ctx): WidgetStore {
  // The hottest statement (every PATCH /widget): named, so it is planned once per connection.
  // The widget's job is written by the same statement (docs/contract/durable-delivery.md#durable-outbox),
  // after the widget row is locked: of two updates of a widget, the later one draws the
  // higher generation. With a claimant ($9, $10: `claimValues`), a job due at once is
  // claimed by the same statement, which also reads that job's audience (`writtenAudience`).
  const setContent = prepared(
    `WITH w AS (
       UPDATE ${t.widgets} SET content = $3::json,
         stale_after = CASE WHEN $4::boolean THEN stale_after ELSE $5::double precision END,
         updated_at = $6
       WHERE account_id = $1 AND slug = $2 AND ($7::text IS NULL OR template = $7)
         AND ${credentialHolds(t, '$1', '$8')}
       RETURNING ${WRITTEN_COLUMNS}
     ), ${writeJob(t, 'w', { kind: `'widget'`, phase: `'changed'`, now: '$6::bigint' }, { instance: '$9::text', leaseMs: '$10::bigint' }, WRITTEN_JOB_COLUMNS)}
     SELECT w.*, job.generation AS job_generation, job.due_at AS job_due_at, job.leased_by AS job_leased_by, job.lease_until AS job_lease_until,
       ${writtenAudience(t, 'widget', 'w', '$9::text')}
     FROM w CROSS JOIN job`,
  );
  // Every press: one statement, and only three small values come back, never the content.
  // The action rule is core's `actionKindIn`: the first element of `actions` whose `id` is
  // that string; `toggle` for kind "toggle", else `button`.
  // Read by every widget delivery job with its audience: named, as the account's devices are.
  const sharesOf = prepared(`SELECT device_id FROM ${t.widgetShares} WHERE account_id = $1 AND slug = $2 ORDER BY device_id COLLATE "C"`);
  const pressTarget = prepared(
    `SELECT
       (SELECT CASE WHEN a.value->>'kind' = 'toggle' THEN 'toggle' ELSE 'button' END
          FROM json_array_elements(CASE WHEN json_typeof(w.content->'actions') = 'array' THEN w.content->'actions' END)
               WITH ORDINALITY AS a(value, n)
         WHERE json_typeof(a.value->'id') = 'string' AND a.value->>'id' = $3
         ORDER BY a.n LIMIT 1) AS action,
       EXISTS (SELECT 1 FROM ${t.widgetShares} s WHERE s.account_id = w.account_id AND s.slug = w.slug AND s.device_id = $4) AS shared,
       CASE WHEN json_typeof(w.webhook_map) = 'object' THEN EXISTS (SELECT 1 FROM json_object_keys(w.webhook_map)) ELSE false END AS has_webhooks
     FROM ${t.widgets} w WHERE w.account_id = $1 AND w.slug = $2`,
  );
  return {
    // One statement: a changed template clears content (shares and webhook map stay).
    async putWidget(definition) {
      await db.query(
        `INSERT INTO ${t.widgets} AS cur (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, NULL, NULL)
         ON CONFLICT (account_id, slug) DO UPDATE SET
           template = EXCLUDED.template,
           stale_after = EXCLUDED.stale_after,
           privacy = EXCLUDED.privacy,
           content = CASE WHEN cur.template = EXCLUDED.template THEN cur.content ELSE NULL END,
           updated_at = CASE WHEN cur.template = EXCLUDED.template THEN cur.updated_at ELSE NULL END`,
        [definition.accountId, definition.slug, definition.template, definition.staleAfter, definition.privacy],
      );
    },

    // Shares, delivery outcomes and the job with the throttle window go with it (ON DELETE
    // CASCADE); the map is a column.
    async deleteWidget(accountId, slug) {
      const result = await db.query(`DELETE FROM ${t.widgets} WHERE account_id = $1 AND slug = $2`, [accountId, slug]);
      return (result.rowCount ?? 0) > 0;
    },

    async getWidget(accountId, slug) {
      const { rows } = await db.query<WidgetRow>(`SELECT ${COLUMNS} FROM ${t.widgets} WHERE account_id = $1 AND slug = $2`, [accountId, slug]);
      return rows[0] ? toWidget(rows[0]) : null;
    },

    async listWidgets(accountId) {
      const { rows } = await db.query<WidgetRow>(`SELECT ${COLUMNS} FROM ${t.widgets} WHERE account_id = $1 ORDER BY slug COLLATE "C"`, [accountId]);
      return rows.map(toWidget);
    },

    async listWidgetsSharedWith(deviceId) {
      const { rows } = await db.query<WidgetRow>(
        `SELECT ${COLUMNS.split(', ')
          .map((column) => `w.${column}`)
          .join(', ')}
         FROM ${t.widgetShares} s JOIN ${t.widgets} w ON w.account_id = s.account_id AND w.slug = s.slug
         WHERE s.device_id = $1
         ORDER BY w.account_id COLLATE "C", w.slug COLLATE "C"`,
        [deviceId],
      );
      return rows.map(toWidget);
    },

    // ATOMIC: one statement, whose conditions (template, credential) are checked on the
    // row it locks, and which writes the job too. The content is not sent back: the caller
    // has it. Only a write that did not happen costs a second query, to say why.
    async setWidgetContent(accountId, slug, update) {
      const keep = update.staleAfter === undefined;
      const guard = update.guard;
      const { rows } = await db.query<WrittenRow>(setContent, [
        accountId,
        slug,
        toJson(update.content),
        keep,
        keep ? null : update.staleAfter,
        update.now,
        guard?.template ?? null,
        guard?.tokenHash ?? null,
        ...claimValues(update.claim),
      ]);
      const row = rows[0];
      if (row)
        return withAudience(
          {
            ok: true,
            widget: toWidget({ ...row, content: update.content }),
            job: writtenJob({ accountId, kind: 'widget', slug }, 'changed', update.now, row),
          } as const,
          row,
        );
      return { ok: false, reason: await explainRefusal(db, t, t.widgets, accountId, slug, guard) };
    },

    // One statement; the foreign keys make a share of a missing widget or device impossible,
    // also when one is deleted concurrently.
    async shareWidget(accountId, slug, deviceId) {
      try {
        const { rows } = await db.query(
          `INSERT INTO ${t.widgetShares} (account_id, slug, device_id)
           SELECT w.account_id, w.slug, d.id FROM ${t.widgets} w, ${t.devices} d
           WHERE w.account_id = $1 AND w.slug = $2 AND d.id = $3 AND d.account_id <> w.account_id
           FOR SHARE OF d
           ON CONFLICT DO NOTHING
           RETURNING 1`,
          [accountId, slug, deviceId],
        );
        if (rows.length > 0) return true;
        // Nothing inserted: either already shared (true), or something is missing or the device is of the widget's account (false).
        const existing = await db.query(`SELECT 1 FROM ${t.widgetShares} WHERE account_id = $1 AND slug = $2 AND device_id = $3`, [accountId, slug, deviceId]);
        return existing.rows.length > 0;
      } catch (error) {
        if (errorCode(error) === '23503') return false; // foreign_key_violation: deleted meanwhile
        throw error;
      }
    },

    async unshareWidget(accountId, slug, deviceId) {
      const result = await db.query(`DELETE FROM ${t.widgetShares} WHERE account_id = $1 AND slug = $2 AND device_id = $3`, [accountId, slug, deviceId]);
      return (result.rowCount ?? 0) > 0;
    },

    async getPressTarget(accountId, slug, actionId, deviceId) {
      const { rows } = await db.query<{ action: 'button' | 'toggle' | null; shared: boolean; has_webhooks: boolean }>(pressTarget, [
        accountId,
        slug,
        actionId,
        deviceId,
      ]);
      const row = rows[0];
      return row ? { action: row.action, sharedWithDevice: row.shared, hasWebhooks: row.has_webhooks } : null;
    },

    async listWidgetShares(accountId, slug) {
      const { rows } = await db.query<{ device_id: string }>(sharesOf, [accountId, slug]);
      return rows.map((row) => row.device_id);
    },
  };
}
