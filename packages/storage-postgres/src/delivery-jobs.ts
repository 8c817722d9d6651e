import {
  WIDGET_PUSH_WINDOW_MS,
  type DeadLetter,
  type DeliveryJob,
  type DeliveryJobRef,
  type DeliveryJobStore,
  type DeliveryResource,
  type WriteClaimTerms,
} from '@tilecast/core/storage';
import { type Ctx, type Tables, num, prepared } from './db.js';

/**
 * Delivery jobs and dead letters (docs/contract/durable-delivery.md). Every operation is
 * one statement; the rules are core's (`supersedingJob`, `isClaimable`, `claimed`),
 * written in SQL where a statement applies them to a row it has locked.
 *
 * A job's row stays after it is done, with `pending` false, until its widget's throttle
 * window is over (`purgeExpired` then removes it): the next update of the widget finds the
 * window on the very row it replaces (migration 5).
 */

interface JobRow {
  account_id: string;
  kind: DeliveryJob['kind'];
  slug: string;
  generation: string | number;
  phase: DeliveryJob['phase'];
  start_above: string | null;
  cursor: string;
  due_at: string | number;
  created_at: string | number;
  leased_by: string | null;
  lease_until: string | number;
  resumed: number;
}

const COLUMNS = 'account_id, kind, slug, generation, phase, start_above, cursor, due_at, created_at, leased_by, lease_until, resumed';
const J_COLUMNS = COLUMNS.split(', ')
  .map((column) => `j.${column}`)
  .join(', ');

const toJob = (row: JobRow): DeliveryJob => ({
  accountId: row.account_id,
  kind: row.kind,
  slug: row.slug,
  generation: num(row.generation),
  phase: row.phase,
  startAbove: row.start_above,
  cursor: row.cursor,
  dueAt: num(row.due_at),
  createdAt: num(row.created_at),
  leasedBy: row.leased_by,
  leaseUntil: num(row.lease_until),
  resumed: num(row.resumed),
});

/**
 * Core's `startStillOwed` of the row being replaced (`cur`), for a new job of phase
 * `phase` (an SQL expression): only an `update` superseding an unfinished job owes a start.
 */
const startStillOwed = (phase: string): string => `CASE
  WHEN ${phase} <> 'update' OR NOT cur.pending THEN NULL
  WHEN cur.phase = 'start' THEN cur.cursor
  WHEN cur.start_above IS NULL THEN NULL
  WHEN cur.cursor > cur.start_above THEN cur.cursor
  ELSE cur.start_above END`;

/**
 * The parameters of a claim made by the content write (`WriteClaimTerms`): the claimant's
 * instance id (text, NULL: no claim) and the lease's length (bigint).
 */
export interface WriteClaimParams {
  instance: string;
  leaseMs: string;
}

/**
 * What a new job replaces in the row `cur` (core's `supersedingJob`), claimed at once when
 * `claim` names a claimant and the job is due at `now` (no widget window runs past it), as
 * core's `claimed` of a job that nobody holds; the values are SQL expressions.
 */
const supersedingSet = (values: { generation: string; phase: string; now: string }, claim: WriteClaimParams): string => {
  const claimNow = `(${claim.instance} IS NOT NULL AND cur.window_until <= ${values.now})`;
  return `
      generation = ${values.generation},
      phase = ${values.phase},
      start_above = ${startStillOwed(values.phase)},
      cursor = '',
      due_at = GREATEST(${values.now}, cur.window_until),
      created_at = ${values.now},
      leased_by = CASE WHEN ${claimNow} THEN ${claim.instance} END,
      lease_until = CASE WHEN ${claimNow} THEN ${values.now} + ${claim.leaseMs} ELSE 0 END,
      window_until = CASE WHEN ${claimNow} AND cur.kind = 'widget' THEN ${values.now} + ${WIDGET_PUSH_WINDOW_MS} ELSE cur.window_until END,
      resumed = 0,
      pending = true`;
};

/**
 * The CTEs that leave the job of each row of `source` (a CTE with `account_id` and `slug`,
 * the content just written) as core's `supersedingJob` says
 * (docs/contract/durable-delivery.md#durable-supersede), in the content's own statement
 * (docs/contract/durable-delivery.md#durable-outbox), claimed by `claim`'s instance when
 * it is due at once (`WriteClaimTerms`), and name it `job` with the `returning` columns.
 * `kind`, `phase` and `now` are SQL expressions, `claim` the claim's parameters.
 *
 * The job's row usually exists (it stays after its job is done, see above): a plain
 * `UPDATE` replaces it, which costs PostgreSQL less than an `INSERT … ON CONFLICT`'s
 * speculative insertion (bench/notes/postgres-fanouts.md). Only when the statement's
 * snapshot has no row is one inserted, and a row another statement inserted meanwhile is
 * replaced by the `ON CONFLICT` arm with the same values. A row being replaced is locked
 * and read as it is now, whatever the snapshot: its `window_until`, set by a claim that
 * committed a moment ago, holds the new job back
 * (docs/contract/durable-delivery.md#durable-throttle-across-instances).
 */
export function writeJob(t: Tables, source: string, values: { kind: string; phase: string; now: string }, claim: WriteClaimParams, returning: string): string {
  const { kind, phase, now } = values;
  // A new row has no window: claimed whenever a claimant is named.
  const claimed = `${claim.instance} IS NOT NULL`;
  const generation = `nextval('${t.deliveryGenerations}')`;
  const cur = returning
    .split(', ')
    .map((column) => `cur.${column}`)
    .join(', ');
  return `job_replaced AS (
      UPDATE ${t.deliveryJobs} AS cur SET ${supersedingSet({ generation, phase, now }, claim)}
      FROM ${source} s WHERE cur.account_id = s.account_id AND cur.kind = ${kind} AND cur.slug = s.slug
      RETURNING ${cur}
    ), job_inserted AS (
      INSERT INTO ${t.deliveryJobs} AS cur
        (account_id, kind, slug, generation, phase, start_above, cursor, due_at, created_at, leased_by, lease_until, resumed, pending, window_until)
      SELECT account_id, ${kind}, slug, ${generation}, ${phase}, NULL, '', ${now}, ${now}, ${claim.instance},
        CASE WHEN ${claimed} THEN ${now} + ${claim.leaseMs} ELSE 0 END, 0, true,
        CASE WHEN ${claimed} AND ${kind} = 'widget' THEN ${now} + ${WIDGET_PUSH_WINDOW_MS} ELSE 0 END
      FROM ${source}
      WHERE NOT EXISTS (SELECT 1 FROM job_replaced)
      ON CONFLICT (account_id, kind, slug) DO UPDATE SET ${supersedingSet({ generation: 'EXCLUDED.generation', phase: 'EXCLUDED.phase', now: 'EXCLUDED.due_at' }, claim)}
      RETURNING ${returning}
    ), job AS (SELECT ${returning} FROM job_replaced UNION ALL SELECT ${returning} FROM job_inserted)`;
}

/** The columns a content write reads back about the job it left (see `writeJob`). */
export interface WrittenJobColumns {
  job_generation: string | number;
  job_due_at: string | number;
  job_start_above?: string | null;
  job_leased_by: string | null;
  job_lease_until: string | number;
  /** The job's audience when the write claimed it (`writtenAudience`), else null. */
  audience: string[] | null;
}

/** The job columns a content write reads back, as `writeJob`'s `returning` (`start_above` for activities). */
export const WRITTEN_JOB_COLUMNS = 'generation, due_at, leased_by, lease_until';

/** `result` with the audience the write read (`writtenAudience`), when it read one. */
export const withAudience = <R extends object>(result: R, row: WrittenJobColumns): R | (R & { audience: string[] }) =>
  row.audience === null ? result : { ...result, audience: row.audience };

/**
 * The job a content write left, from what it read back: core's `supersedingJob` as the
 * statement wrote it, from the first device, leased when the write claimed it.
 */
export function writtenJob(resource: DeliveryResource, phase: DeliveryJob['phase'], now: number, row: WrittenJobColumns): DeliveryJob {
  return {
    ...resource,
    generation: num(row.job_generation),
    phase,
    startAbove: row.job_start_above ?? null,
    cursor: '',
    dueAt: num(row.job_due_at),
    createdAt: now,
    leasedBy: row.job_leased_by,
    leaseUntil: num(row.job_lease_until),
    resumed: 0,
  };
}

/**
 * The `audience` column of a content write (core's `WrittenAudience`,
 * docs/decisions/0119-audience-in-the-write.md): when the write claimed the job it left for
 * `instance` (the claim's parameter: `job.leased_by` is set only by a claim in this very
 * statement), the job's devices as `listAccountDeviceIds` lists them, ascending by code
 * units (`COLLATE "C"`), with a widget's shares (`listWidgetShares`) merged in, each once;
 * NULL otherwise. `source` is the CTE of the content written (`account_id`, `slug`), joined
 * with `job`. `ARRAY(…)` of no rows is `{}`, never NULL. Read in the write's own statement:
 * no statement of its own before the job's first push.
 */
export function writtenAudience(t: Tables, kind: DeliveryJob['kind'], source: string, instance: string): string {
  const own = `SELECT d.id FROM ${t.devices} d WHERE d.account_id = ${source}.account_id`;
  const devices =
    kind === 'activity'
      ? `${own} ORDER BY d.id COLLATE "C"`
      : `SELECT u.id FROM (${own}
           UNION SELECT s.device_id FROM ${t.widgetShares} s WHERE s.account_id = ${source}.account_id AND s.slug = ${source}.slug) u
         ORDER BY u.id COLLATE "C"`;
  return `CASE WHEN job.leased_by = ${instance} THEN ARRAY(${devices}) END AS audience`;
}

/** The parameters of `claim` as `writeJob`'s statement takes them (`WriteClaimParams`): null for both without a claim. */
export const claimValues = (claim: WriteClaimTerms | undefined): [string | null, number | null] =>
  claim === undefined ? [null, null] : [claim.instanceId, claim.leaseMs];

/**
 * Core's `claimed` for the row `j` (parameters: the instance, `now`, `leaseMs`); a widget's
 * throttle window then runs from `now` (docs/contract/device-api.md#widget-push-throttle).
 */
const claimSet = (instance: string, now: string, leaseMs: string): string => `
  leased_by = ${instance},
  lease_until = ${now}::bigint + ${leaseMs}::bigint,
  resumed = j.resumed + CASE WHEN j.leased_by IS NOT NULL AND j.leased_by <> ${instance} THEN 1 ELSE 0 END,
  window_until = CASE WHEN j.kind = 'widget' THEN ${now}::bigint + ${WIDGET_PUSH_WINDOW_MS} ELSE j.window_until END`;

/** Core's `isClaimable` for the row `j` at `now`, and still pending. */
const claimable = (now: string): string => `j.pending AND j.due_at <= ${now}::bigint AND j.lease_until <= ${now}::bigint`;

/** The row `ref` names, while `ref` holds it: same generation, leased by the same instance, not done. */
const HELD = 'account_id = $1 AND kind = $2 AND slug = $3 AND generation = $4 AND leased_by = $5 AND pending';
const refValues = (ref: DeliveryJobRef): unknown[] => [ref.accountId, ref.kind, ref.slug, ref.generation, ref.instanceId];

/** Oldest due first; generations break ties (both stores order alike). */
const byDue = (a: DeliveryJob, b: DeliveryJob): number => a.dueAt - b.dueAt || a.generation - b.generation;

const LETTER_COLUMNS = 'account_id, kind, slug, device_id, transport, reason, at';

interface LetterRow {
  account_id: string;
  kind: DeadLetter['kind'];
  slug: string;
  device_id: string;
  transport: string;
  reason: string;
  at: string | number;
}

const toLetter = (row: LetterRow): DeadLetter => ({
  accountId: row.account_id,
  kind: row.kind,
  slug: row.slug,
  deviceId: row.device_id,
  transport: row.transport,
  reason: row.reason,
  at: num(row.at),
});

export function deliveryJobMethods({ db, t }: Ctx): DeliveryJobStore {
  // Every fan-out claims, records progress in batches and completes: named statements.
  const claimOne = prepared(
    `UPDATE ${t.deliveryJobs} j SET ${claimSet('$5', '$6', '$7')}
     WHERE j.account_id = $1 AND j.kind = $2 AND j.slug = $3 AND j.generation = $4 AND ${claimable('$6')}
     RETURNING ${J_COLUMNS}`,
  );
  // Rows another claimant has locked are skipped, never waited for
  // (docs/contract/durable-delivery.md#durable-job-claiming).
  const claimDue = prepared(
    `WITH due AS (
       SELECT j.account_id, j.kind, j.slug FROM ${t.deliveryJobs} j WHERE ${claimable('$2')}
       ORDER BY j.due_at, j.generation LIMIT $4 FOR UPDATE SKIP LOCKED
     )
     UPDATE ${t.deliveryJobs} j SET ${claimSet('$1', '$2', '$3')}
     FROM due WHERE j.account_id = due.account_id AND j.kind = due.kind AND j.slug = due.slug AND ${claimable('$2')}
     RETURNING ${J_COLUMNS}`,
  );
  const progress = prepared(`UPDATE ${t.deliveryJobs} SET cursor = $6, lease_until = $7::bigint + $8::bigint WHERE ${HELD} AND lease_until > $7`);
  const complete = prepared(`UPDATE ${t.deliveryJobs} SET pending = false, leased_by = NULL, lease_until = 0 WHERE ${HELD}`);
  return {
    async claimDeliveryJob(resource, generation, { instanceId, now, leaseMs }) {
      const { rows } = await db.query<JobRow>(claimOne, [resource.accountId, resource.kind, resource.slug, generation, instanceId, now, leaseMs]);
      return rows[0] ? toJob(rows[0]) : null;
    },

    async claimDueDeliveryJobs({ instanceId, now, leaseMs, limit }) {
      if (!(limit > 0)) return [];
      const { rows } = await db.query<JobRow>(claimDue, [instanceId, now, leaseMs, limit]);
      return rows.map(toJob).sort(byDue);
    },

    async recordDeliveryProgress(ref, { cursor, now, leaseMs }) {
      const result = await db.query(progress, [...refValues(ref), cursor, now, leaseMs]);
      return (result.rowCount ?? 0) > 0;
    },

    async completeDeliveryJob(ref) {
      const result = await db.query(complete, refValues(ref));
      return (result.rowCount ?? 0) > 0;
    },

    // A handed-back job is not a lapsed one: the next claimant does not count a resume.
    async releaseDeliveryJob(ref) {
      await db.query(`UPDATE ${t.deliveryJobs} SET leased_by = NULL, lease_until = 0 WHERE ${HELD}`, refValues(ref));
    },

    async listDeliveryJobs({ accountId, limit }) {
      const { rows } = await db.query<JobRow>(
        `SELECT ${COLUMNS} FROM ${t.deliveryJobs} WHERE pending ${accountId === undefined ? '' : 'AND account_id = $2'}
         ORDER BY created_at, generation LIMIT $1`,
        accountId === undefined ? [Math.max(0, limit)] : [Math.max(0, limit), accountId],
      );
      return rows.map(toJob);
    },

    async deliveryJobStats() {
      const { rows } = await db.query<{ pending: string | number; oldest: string | number | null }>(
        `SELECT count(*) AS pending, min(created_at) AS oldest FROM ${t.deliveryJobs} WHERE pending`,
      );
      const row = rows[0]!;
      return { pending: num(row.pending), oldestCreatedAt: row.oldest === null ? null : num(row.oldest) };
    },

    // One statement for the batch, whatever its size.
    async addDeadLetters(letters) {
      if (letters.length === 0) return;
      const column = <K extends keyof DeadLetter>(key: K) => letters.map((letter) => letter[key]);
      await db.query(
        `INSERT INTO ${t.deadLetters} (${LETTER_COLUMNS})
         SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[])`,
        [column('accountId'), column('kind'), column('slug'), column('deviceId'), column('transport'), column('reason'), column('at')],
      );
    },

    // Newest first; of two at the same time, the one added later first (as in the memory store).
    async listDeadLetters({ accountId, limit }) {
      const { rows } = await db.query<LetterRow>(
        `SELECT ${LETTER_COLUMNS} FROM ${t.deadLetters} ${accountId === undefined ? '' : 'WHERE account_id = $2'}
         ORDER BY at DESC, id DESC LIMIT $1`,
        accountId === undefined ? [Math.max(0, limit)] : [Math.max(0, limit), accountId],
      );
      return rows.map(toLetter);
    },
  };
}
