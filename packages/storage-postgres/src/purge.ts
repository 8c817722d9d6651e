import { DEAD_LETTER_TTL_MS } from '@tilecast/core/storage';
import type { Ctx, Queryable, Tables } from './db.js';

/**
 * Deletes at most `batch` rows of `table` matching `condition` (parameters: $1 = now,
 * $2 = batch). Rows are picked by `ctid` with `FOR UPDATE SKIP LOCKED`, so the purge
 * never waits for a row a request holds (and a request never waits long for the purge:
 * each batch is its own short statement). The condition is checked again on delete, so a
 * row changed meanwhile (a bucket just spent from) is kept.
 */
async function purgeBatch(db: Queryable, table: string, condition: string, now: number, batch: number): Promise<number> {
  const result = await db.query(
    `DELETE FROM ${table} AS x
     WHERE x.ctid = ANY(ARRAY(SELECT y.ctid FROM ${table} AS y WHERE ${condition.replaceAll('@', 'y.')} LIMIT $2 FOR UPDATE SKIP LOCKED))
       AND ${condition.replaceAll('@', 'x.')}`,
    [now, batch],
  );
  return result.rowCount ?? 0;
}

function kinds(t: Tables): { counted: Array<[string, string]>; uncounted: Array<[string, string]> } {
  return {
    counted: [
      [t.events, '@expires_at <= $1'],
      [t.pressKeys, '@expires_at <= $1'],
      [t.pressNotes, '@until <= $1'],
      [t.streamLeases, '@expires_at <= $1'],
      [t.deviceStreamLeases, '@expires_at <= $1'],
      [t.webhookClaims, '@expires_at <= $1'],
      [t.deadLetters, `@at <= $1::bigint - ${DEAD_LETTER_TTL_MS}`],
    ],
    uncounted: [
      // Full at `now` after refilling: indistinguishable from a bucket never created.
      [t.tokenBuckets, '@tokens + GREATEST(0, $1::bigint - @refilled_at) / @refill_ms >= @capacity'],
      // A done job whose widget's throttle window is over (an activity's at once): the next
      // update finds no row and is due at once, as it would be with the row.
      [t.deliveryJobs, 'NOT @pending AND @window_until <= $1::bigint'],
    ],
  };
}

/**
 * `purgeExpired`: at most `batch` rows of each kind, each kind its own short statement
 * (autocommit), returning the number of expired events, press keys, press notes,
 * event- and device-stream slots, delivery claims and dead letters older than
 * `DEAD_LETTER_TTL_MS` removed; full token buckets and done jobs whose throttle window is
 * over are freed too, uncounted. Event counters stay: positions are never reused; so does
 * the generation sequence.
 */
export async function purgeExpired({ db, t }: Ctx, now: number, batch: number): Promise<number> {
  if (!(batch > 0)) return 0;
  const { counted, uncounted } = kinds(t);
  let removed = 0;
  for (const [table, condition] of counted) removed += await purgeBatch(db, table, condition, now, batch);
  for (const [table, condition] of uncounted) await purgeBatch(db, table, condition, now, batch);
  return removed;
}
