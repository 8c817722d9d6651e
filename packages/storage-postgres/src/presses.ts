import type { Storage, TokenBucketRule } from '@tilecast/core';
import { type Ctx, num, transaction } from './db.js';

type PressMethods = Pick<Storage, 'takeTokens' | 'recordPress' | 'findPress' | 'notePress' | 'listRecentPressers'>;

/** Code-unit order: every caller locks bucket rows in the same order, so takes never deadlock. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Whole refill periods since the last refill, with the rule's (possibly new) refill time.
 * The same arithmetic as the memory store: a full bucket restarts its clock at `now`,
 * otherwise the partial period is kept by advancing `refilled_at` in whole periods.
 */
const PERIODS = `(GREATEST(0, $2::bigint - b.refilled_at) / EXCLUDED.refill_ms)`;

export function pressMethods({ db, t }: Ctx): PressMethods {
  return {
    // ATOMIC: one transaction. Each bucket is refilled by an upsert that row-locks it (in
    // key order), then, only if every bucket holds enough, one update spends from all of
    // them. A refused take spends nothing (refilling alone changes nothing observable).
    async takeTokens(rules, now) {
      const wanted = new Map<string, { rule: TokenBucketRule; take: number }>();
      for (const rule of rules) {
        const entry = wanted.get(rule.key);
        if (entry) {
          entry.take += 1;
          entry.rule = rule; // the last rule for a key sets capacity and refill time, as in memory
        } else {
          wanted.set(rule.key, { rule, take: 1 });
        }
      }
      if (wanted.size === 0) return true;
      const keys = [...wanted.keys()].sort(byCodeUnit);
      return transaction(db, async (client) => {
        let enough = true;
        for (const key of keys) {
          const { rule, take } = wanted.get(key)!;
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
            [key, now, rule.capacity, rule.refillMs],
          );
          if (num(rows[0]!.tokens) < take) enough = false;
        }
        if (!enough) return false;
        await client.query(
          `UPDATE ${t.tokenBuckets} AS b SET tokens = b.tokens - w.take
           FROM unnest($1::text[], $2::bigint[]) AS w(key, take) WHERE b.key = w.key`,
          [keys, keys.map((key) => wanted.get(key)!.take)],
        );
        return true;
      });
    },

    // ATOMIC: the insert-or-replace-if-expired is one statement. When the key is held, a
    // transaction repeats it (which row-locks the holder) and reads the holder's event id
    // under that lock, so the id returned is the one that de-duplicated this press.
    async recordPress(key, eventId, now, expiresAt) {
      const upsert = `INSERT INTO ${t.pressKeys} AS p (key, event_id, expires_at) VALUES ($1, $2, $4)
        ON CONFLICT (key) DO UPDATE SET event_id = EXCLUDED.event_id, expires_at = EXCLUDED.expires_at
        WHERE p.expires_at <= $3
        RETURNING event_id`;
      const params = [key, eventId, now, expiresAt];
      const first = await db.query(upsert, params);
      if (first.rows.length > 0) return { created: true, eventId };
      return transaction(db, async (client) => {
        const again = await client.query(upsert, params);
        if (again.rows.length > 0) return { created: true, eventId };
        const { rows } = await client.query<{ event_id: string }>(`SELECT event_id FROM ${t.pressKeys} WHERE key = $1`, [key]);
        return { created: false, eventId: rows[0]!.event_id };
      });
    },

    async findPress(key, now) {
      const { rows } = await db.query<{ event_id: string }>(
        `SELECT event_id FROM ${t.pressKeys} WHERE key = $1 AND expires_at > $2`,
        [key, now],
      );
      return rows[0]?.event_id ?? null;
    },

    async notePress(widgetKey, deviceId, until) {
      await db.query(
        `INSERT INTO ${t.pressNotes} (widget_key, device_id, until) VALUES ($1, $2, $3)
         ON CONFLICT (widget_key, device_id) DO UPDATE SET until = EXCLUDED.until`,
        [widgetKey, deviceId, until],
      );
    },

    async listRecentPressers(widgetKey, now) {
      const { rows } = await db.query<{ device_id: string }>(
        `SELECT device_id FROM ${t.pressNotes} WHERE widget_key = $1 AND until > $2 ORDER BY device_id COLLATE "C"`,
        [widgetKey, now],
      );
      return rows.map((row) => row.device_id);
    },
  };
}
