import { isoTime, writeRefusal, type ActivityRecord, type ActivityTransition, type ActivityStore } from '@tilecast/core/storage';
import { type Ctx, num, prepared, toJson, transaction } from './db.js';
import { WRITTEN_JOB_COLUMNS, claimValues, withAudience, writeJob, writtenAudience, writtenJob, type WrittenJobColumns } from './delivery-jobs.js';
import { credentialHolds } from './guard.js';

interface ActivityRow {
  account_id: string;
  slug: string;
  template: string;
  dismissal_delay_s: number;
  state: ActivityRecord['state'];
  live: boolean;
  content: unknown;
  updated_at: string | number | null;
  delivery: ActivityRecord['delivery'];
  frequent_updates: boolean;
  channel_production: string | null;
  channel_sandbox: string | null;
}

const COLUMNS =
  'account_id, slug, template, dismissal_delay_s, state, live, content, updated_at, delivery, frequent_updates, channel_production, channel_sandbox';

const toActivity = (row: ActivityRow): ActivityRecord => ({
  accountId: row.account_id,
  slug: row.slug,
  template: row.template,
  dismissalDelayS: num(row.dismissal_delay_s),
  state: row.state,
  live: row.live,
  content: row.content ?? null,
  updatedAt: row.updated_at === null ? null : isoTime(num(row.updated_at)),
  delivery: row.delivery,
  frequentUpdates: row.frequent_updates,
  channels: { production: row.channel_production, sandbox: row.channel_sandbox },
});

/** What an update pushed somewhere reads back: the activity and its new job's generation, `startAbove`, due time and lease. */
interface WrittenRow extends ActivityRow, WrittenJobColumns {}

export function activityMethods({ db, t }: Ctx): ActivityStore {
  // Each update's time is later than the one before (core's activityUpdateTime:
  // docs/contract/apns.md#apns-timestamp); GREATEST ignores the NULL of a first update.
  const SET = 'SET state = $3, live = $4, content = $5::json, updated_at = GREATEST($6::bigint, updated_at + 1) WHERE account_id = $1 AND slug = $2';
  // An update pushed somewhere writes its job in the same statement as the activity
  // (docs/contract/durable-delivery.md#durable-outbox), and claims it when asked to
  // (parameters `claim`, see `claimValues`), reading the audience of a job it claimed
  // (`writtenAudience`): named, as every start, update and end runs it.
  const withJob = (where: string, claim: [instance: string, leaseMs: string]) =>
    prepared(
      `WITH a AS (UPDATE ${t.activities} ${SET}${where} RETURNING ${COLUMNS}),
       ${writeJob(
         t,
         'a',
         { kind: `'activity'`, phase: '$7::text', now: '$6::bigint' },
         { instance: `${claim[0]}::text`, leaseMs: `${claim[1]}::bigint` },
         `${WRITTEN_JOB_COLUMNS}, start_above`,
       )}
       SELECT a.*, job.generation AS job_generation, job.start_above AS job_start_above, job.due_at AS job_due_at,
         job.leased_by AS job_leased_by, job.lease_until AS job_lease_until, ${writtenAudience(t, 'activity', 'a', `${claim[0]}::text`)}
       FROM a CROSS JOIN job`,
    );
  const writeWithJob = withJob('', ['$8', '$9']);
  // The same for an activity that is live, in one statement without a transaction (most
  // updates of a running activity): its WHERE also holds the guard and `live`, re-checked by
  // PostgreSQL on the row it locks, so it writes only what the transaction would have
  // written as an update or an end; anything else changes nothing and takes the full way.
  const writeLiveWithJob = withJob(` AND live AND ($11::text IS NULL OR template = $11) AND ${credentialHolds(t, '$1', '$10')}`, ['$8', '$9']);
  // A start's transaction (see `applyActivityUpdate`), named like the writes: every start runs it.
  const lockActivity = prepared(
    `SELECT a.live, a.template, ${credentialHolds(t, '$1', '$3')} AS credential_ok
     FROM (SELECT 1) AS one
     LEFT JOIN (SELECT live, template FROM ${t.activities} WHERE account_id = $1 AND slug = $2 FOR UPDATE) a ON true`,
  );
  const lockQuota = prepared(`SELECT activity_quota FROM ${t.accounts} WHERE id = $1 FOR UPDATE`);
  const countLive = prepared(`SELECT count(*) AS live FROM ${t.activities} WHERE account_id = $1 AND live`);
  const written = (row: WrittenRow, transition: Exclude<ActivityTransition, 'none'>, now: number) =>
    withAudience(
      {
        ok: true,
        activity: toActivity(row),
        transition,
        job: writtenJob({ accountId: row.account_id, kind: 'activity', slug: row.slug }, transition, now, row),
      } as const,
      row,
    );
  return {
    // One statement: a changed template resets state, liveness and content. The channels
    // stay, whatever changes (the runner deletes them after an end).
    async putActivity(definition) {
      await db.query(
        `INSERT INTO ${t.activities} AS cur (${COLUMNS}) VALUES ($1, $2, $3, $4, 'IDLE', false, NULL, NULL, $5, $6, NULL, NULL)
         ON CONFLICT (account_id, slug) DO UPDATE SET
           dismissal_delay_s = EXCLUDED.dismissal_delay_s,
           delivery = EXCLUDED.delivery,
           frequent_updates = EXCLUDED.frequent_updates,
           template = EXCLUDED.template,
           state = CASE WHEN cur.template = EXCLUDED.template THEN cur.state ELSE 'IDLE' END,
           live = CASE WHEN cur.template = EXCLUDED.template THEN cur.live ELSE false END,
           content = CASE WHEN cur.template = EXCLUDED.template THEN cur.content ELSE NULL END,
           updated_at = CASE WHEN cur.template = EXCLUDED.template THEN cur.updated_at ELSE NULL END`,
        [
          definition.accountId,
          definition.slug,
          definition.template,
          definition.dismissalDelayS,
          definition.delivery ?? 'tokens',
          definition.frequentUpdates ?? false,
        ],
      );
    },

    // Its job, update tokens and channel ids go with it (ON DELETE CASCADE).
    async deleteActivity(accountId, slug) {
      const result = await db.query(`DELETE FROM ${t.activities} WHERE account_id = $1 AND slug = $2`, [accountId, slug]);
      return (result.rowCount ?? 0) > 0;
    },

    async getActivity(accountId, slug) {
      const { rows } = await db.query<ActivityRow>(`SELECT ${COLUMNS} FROM ${t.activities} WHERE account_id = $1 AND slug = $2`, [accountId, slug]);
      return rows[0] ? toActivity(rows[0]) : null;
    },

    async listActivities(accountId) {
      const { rows } = await db.query<ActivityRow>(`SELECT ${COLUMNS} FROM ${t.activities} WHERE account_id = $1 ORDER BY slug COLLATE "C"`, [accountId]);
      return rows.map(toActivity);
    },

    // ATOMIC: one statement for a live activity's update or end (writeLiveWithJob), else one
    // transaction. The activity row is locked first (concurrent updates of one
    // activity queue up and each sees the previous one's outcome). A start then locks the
    // account row, which serialises every start of the account: the live count read after
    // taking it includes every start committed before, so N concurrent starts against
    // quota Q give exactly min(N, Q) successes across instances. Ends and updates of live
    // activities never take the account lock (they cannot raise the count).
    async applyActivityUpdate(accountId, slug, update) {
      const values = [accountId, slug, update.state, update.state === 'ONGOING', toJson(update.content), update.now];
      const live: ActivityTransition = update.state === 'ONGOING' ? 'update' : 'end';
      const guard = [update.guard?.tokenHash ?? null, update.guard?.template ?? null];
      const claim = claimValues(update.claim);
      const fast = await db.query<WrittenRow>(writeLiveWithJob, [...values, live, ...claim, ...guard]);
      if (fast.rows[0] !== undefined) return written(fast.rows[0], live, update.now);
      return transaction(db, async (client) => {
        const current = await client.query<{ live: boolean | null; template: string | null; credential_ok: boolean }>(lockActivity, [
          accountId,
          slug,
          update.guard?.tokenHash ?? null,
        ]);
        const activity = current.rows[0]!;
        const refusal = writeRefusal(activity.credential_ok, activity.template, update.guard);
        if (refusal !== null) return { ok: false, reason: refusal } as const;
        let transition: ActivityTransition;
        if (update.state === 'ONGOING') {
          if (activity.live) {
            transition = 'update';
          } else {
            const account = await client.query<{ activity_quota: number }>(lockQuota, [accountId]);
            // An activity without its account cannot be started (no quota to count against).
            if (!account.rows[0]) return { ok: false, reason: 'not_found' } as const;
            const live = await client.query<{ live: string | number }>(countLive, [accountId]);
            if (num(live.rows[0]!.live) + 1 > num(account.rows[0].activity_quota)) {
              return { ok: false, reason: 'quota_exceeded' } as const;
            }
            transition = 'start';
          }
        } else {
          transition = activity.live ? 'end' : 'none';
        }
        // `none` is pushed nowhere: no job, and an unfinished one stays as it is.
        if (transition === 'none') {
          const { rows } = await client.query<ActivityRow>(`UPDATE ${t.activities} ${SET} RETURNING ${COLUMNS}`, values);
          return { ok: true, activity: toActivity(rows[0]!), transition, job: null } as const;
        }
        const { rows } = await client.query<WrittenRow>(writeWithJob, [...values, transition, ...claim]);
        return written(rows[0]!, transition, update.now);
      });
    },
  };
}
