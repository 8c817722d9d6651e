import type { PushClaim, PushThrottleStore } from '@tilecast/core/storage';
import { type Ctx, num } from './db.js';

/**
 * A window covers [start, ends_at): at `ends_at` it is over. Both claims are one
 * statement each (compare-and-set on the row): concurrent callers queue on the row lock
 * and each sees the previous one's outcome.
 */
export function throttleMethods({ db, t }: Ctx): PushThrottleStore {
  return {
    // ATOMIC. `last_claim` records which branch this very statement took (RETURNING only
    // sees the new row): 'now' (a window started), 'owner' (first caller inside a window:
    // owns the trailing push) or 'scheduled' (someone else owns it).
    async claimWidgetPush(key, { now, windowMs }) {
      const { rows } = await db.query<{ ends_at: string | number; last_claim: 'now' | 'owner' | 'scheduled' }>(
        `INSERT INTO ${t.throttleWindows} AS w (key, ends_at, window_ms, trailing_pending, last_claim)
         VALUES ($1, $2::bigint + $3::bigint, $3, false, 'now')
         ON CONFLICT (key) DO UPDATE SET
           ends_at = CASE WHEN $2 >= w.ends_at THEN EXCLUDED.ends_at ELSE w.ends_at END,
           window_ms = CASE WHEN $2 >= w.ends_at THEN EXCLUDED.window_ms ELSE w.window_ms END,
           trailing_pending = $2 < w.ends_at,
           last_claim = CASE WHEN $2 >= w.ends_at THEN 'now' WHEN w.trailing_pending THEN 'scheduled' ELSE 'owner' END
         RETURNING ends_at, last_claim`,
        [key, now, windowMs],
      );
      const row = rows[0]!;
      const endsAt = num(row.ends_at);
      const claim: PushClaim =
        row.last_claim === 'now' ? { send: 'now', windowEndsAt: endsAt } : { send: 'later', at: endsAt, trailingScheduled: row.last_claim === 'scheduled' };
      return claim;
    },

    // ATOMIC: clears the pending flag and starts the new window in one statement; true for
    // the one caller whose statement found the flag set. A timer firing a little early
    // (another instance's clock) still sends: the trailing push is never lost.
    async claimTrailingPush(key, { now, windowMs }) {
      const result = await db.query(
        `UPDATE ${t.throttleWindows} SET ends_at = $2::bigint + $3::bigint, window_ms = $3, trailing_pending = false, last_claim = 'now'
         WHERE key = $1 AND trailing_pending`,
        [key, now, windowMs],
      );
      return (result.rowCount ?? 0) > 0;
    },
  };
}
