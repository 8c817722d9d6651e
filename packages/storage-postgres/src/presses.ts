import { tokenTakes, type PressStore, type TokenBucketRule } from '@tilecast/core/storage';
import { type Ctx, type Queryable, type Tables, num, transaction } from './db.js';
import { appendEventWith } from './events.js';

/** Code-unit order: every caller locks bucket rows in the same order, so takes never deadlock. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Whole refill periods since the last refill, with the rule's (possibly new) refill time.
 * The same arithmetic as the memory store: a full bucket restarts its clock at `now`,
 * otherwise the partial period is kept by advancing `refilled_at` in whole periods.
 */
const PERIODS = `(GREATEST(0, $2::bigint - b.refilled_at) / EXCLUDED.refill_ms)`;

/**
 * Inside the caller's transaction: each bucket is refilled by an upsert that row-locks it
 * (in key order), then, only if every bucket holds enough, one update spends from all of
 * them. A refused take spends nothing (refilling alone changes nothing observable).
 */
async function takeTokens(client: Queryable, t: Tables, rules: TokenBucketRule[], now: number): Promise<boolean> {
  const wanted = tokenTakes(rules).sort((a, b) => byCodeUnit(a.rule.key, b.rule.key));
  if (wanted.length === 0) return true;
  let enough = true;
  for (const { rule, take } of wanted) {
    const { rows } = await client.query<{ tokens: string | number }>(
      `INSERT INTO ${t.tokenBuckets} AS b (key, tokens, refilled_at, capacity, refill_ms) VALUES ($1, $3, $2, $3, $4)
       ON CONFLICT (key) DO UPDATE SET
         capacity = EXCLUDED.capacity,
         refill_ms = EXCLUDED.refill_ms,
         tokens = LEAST(EXCLUDED.capacity, CASE
           WHEN ${PERIODS} <= 0 THEN b.tokens
           WHEN b.tokens + ${PERIODS} >= EXCLUDED.capacity THEN EXCLUDED.capacity
           ELSE b.tokens + ${PERIODS} END),
         refilled_at = CASE
           WHEN ${PERIODS} <= 0 THEN b.refilled_at
           WHEN b.tokens + ${PERIODS} >= EXCLUDED.capacity THEN $2::bigint
           ELSE b.refilled_at + ${PERIODS} * EXCLUDED.refill_ms END
       RETURNING tokens`,
      [rule.key, now, rule.capacity, rule.refillMs],
    );
    if (num(rows[0]!.tokens) < take) enough = false;
  }
  if (!enough) return false;
  await client.query(
    `UPDATE ${t.tokenBuckets} AS b SET tokens = b.tokens - w.take
     FROM unnest($1::text[], $2::bigint[]) AS w(key, take) WHERE b.key = w.key`,
    [wanted.map(({ rule }) => rule.key), wanted.map(({ take }) => take)],
  );
  return true;
}

/** A press note: the latest press of the device on the widget counts. */
async function writeNote(q: Queryable, t: Tables, widgetKey: string, deviceId: string, until: number): Promise<void> {
  await q.query(
    `INSERT INTO ${t.pressNotes} (widget_key, device_id, until) VALUES ($1, $2, $3)
     ON CONFLICT (widget_key, device_id) DO UPDATE SET until = EXCLUDED.until`,
    [widgetKey, deviceId, until],
  );
}

/** Thrown inside the admission transaction to roll it back when a bucket is empty. */
class Limited {}

export function pressMethods(ctx: Ctx): PressStore {
  const { db, t } = ctx;
  return {
    // ATOMIC: one transaction. The key's upsert (insert, or replace an expired holder)
    // row-locks it first, so concurrent presses of one key queue there and the later ones
    // see the winner; buckets are then locked in key order, so admissions never deadlock.
    // An empty bucket rolls everything back.
    async admitPress({ key, keyExpiresAt, rules, now, note, accountId, event }) {
      try {
        return await transaction(db, async (client) => {
          const claimed = await client.query(
            `INSERT INTO ${t.pressKeys} AS p (key, event_id, expires_at) VALUES ($1, $2, $4)
             ON CONFLICT (key) DO UPDATE SET event_id = EXCLUDED.event_id, expires_at = EXCLUDED.expires_at
             WHERE p.expires_at <= $3
             RETURNING event_id`,
            [key, event.id, now, keyExpiresAt],
          );
          if (claimed.rows.length === 0) {
            // Held and unexpired: the upsert locked the holder, whose event id is read under that lock.
            const { rows } = await client.query<{ event_id: string }>(`SELECT event_id FROM ${t.pressKeys} WHERE key = $1`, [key]);
            return { outcome: 'duplicate' as const, eventId: rows[0]!.event_id };
          }
          if (!(await takeTokens(client, t, rules, now))) throw new Limited();
          await writeNote(client, t, note.widgetKey, note.deviceId, note.until);
          return { outcome: 'accepted' as const, event: await appendEventWith(client, ctx, accountId, event) };
        });
      } catch (error) {
        if (error instanceof Limited) return { outcome: 'limited' };
        throw error;
      }
    },

    notePress: ({ widgetKey, deviceId, until }) => writeNote(db, t, widgetKey, deviceId, until),

    async listRecentPressers(widgetKey, now) {
      const { rows } = await db.query<{ device_id: string }>(
        `SELECT device_id FROM ${t.pressNotes} WHERE widget_key = $1 AND until > $2 ORDER BY device_id COLLATE "C"`,
        [widgetKey, now],
      );
      return rows.map((row) => row.device_id);
    },
  };
}
