import type { EventStore, StoredEvent } from '@tilecast/core/storage';
import { type Ctx, type Queryable, num, toJson } from './db.js';

interface EventRow {
  position: string | number;
  id: string;
  subject: string;
  type: string;
  expires_at: string | number;
  envelope: Record<string, unknown>;
}

const toEvent = (row: EventRow): StoredEvent => ({
  position: num(row.position),
  id: row.id,
  subject: row.subject,
  type: row.type,
  expiresAt: num(row.expires_at),
  envelope: row.envelope,
});

/**
 * ATOMIC, one statement (one transaction, or part of the caller's): the account's counter
 * row is raised with `ON CONFLICT DO UPDATE`, which row-locks it until commit, so appenders
 * of one account queue on that row and take positions in commit order: a reader can never
 * see n+1 and later find n, and a rolled-back append leaves no gap. The wake-up (payload:
 * the account id only) is sent by PostgreSQL at commit, never for a rolled-back append.
 */
export async function appendEventWith(
  q: Queryable,
  { t, channel }: Pick<Ctx, 't' | 'channel'>,
  accountId: string,
  event: Omit<StoredEvent, 'position'>,
): Promise<StoredEvent> {
  const { rows } = await q.query<{ position: string | number }>(
    `WITH counter AS (
       INSERT INTO ${t.eventCounters} AS c (account_id, last, last_xid) VALUES ($1, 1, pg_current_xact_id())
       ON CONFLICT (account_id) DO UPDATE SET last = c.last + 1, last_xid = EXCLUDED.last_xid
       RETURNING last
     )
     INSERT INTO ${t.events} (account_id, position, id, subject, type, expires_at, envelope)
     SELECT $1, counter.last, $2, $3, $4, $5, $6::json FROM counter
     RETURNING position, (SELECT pg_notify($7, $1)) IS NULL AS notified`,
    [accountId, event.id, event.subject, event.type, event.expiresAt, toJson(event.envelope), channel],
  );
  return {
    position: num(rows[0]!.position),
    id: event.id,
    subject: event.subject,
    type: event.type,
    expiresAt: event.expiresAt,
    envelope: structuredClone(event.envelope),
  };
}

export function eventMethods(ctx: Ctx): EventStore {
  const { db, t } = ctx;
  return {
    appendEvent: (accountId, event) => appendEventWith(db, ctx, accountId, event),

    async readEvents(accountId, { after: afterPosition, now, limit }) {
      const { rows } = await db.query<EventRow>(
        `SELECT position, id, subject, type, expires_at, envelope FROM ${t.events}
         WHERE account_id = $1 AND position > $2 AND expires_at > $3
         ORDER BY position LIMIT $4`,
        [accountId, afterPosition, now, limit],
      );
      return rows.map(toEvent);
    },

    async lastEventPosition(accountId) {
      const { rows } = await db.query<{ last: string | number }>(`SELECT last FROM ${t.eventCounters} WHERE account_id = $1`, [accountId]);
      return rows[0] ? num(rows[0].last) : 0;
    },

    async countEvents() {
      const { rows } = await db.query<{ count: string | number }>(`SELECT count(*) AS count FROM ${t.events}`);
      return num(rows[0]!.count);
    },
  };
}
