import type { WebhookStore } from '@tilecast/core/storage';
import { type Ctx, errorCode, toJson } from './db.js';

export function webhookMethods({ db, t }: Ctx): WebhookStore {
  return {
    async setWebhookMap(accountId, slug, map) {
      const result = await db.query(`UPDATE ${t.widgets} SET webhook_map = $3::json WHERE account_id = $1 AND slug = $2`, [accountId, slug, toJson(map)]);
      return (result.rowCount ?? 0) > 0;
    },

    async getWebhookMap(accountId, slug) {
      const { rows } = await db.query<{ webhook_map: Record<string, unknown> }>(`SELECT webhook_map FROM ${t.widgets} WHERE account_id = $1 AND slug = $2`, [
        accountId,
        slug,
      ]);
      return rows[0] ? rows[0].webhook_map : null;
    },

    // ATOMIC, one statement: the primary key on (event, entry) admits one claim; an expired
    // claim (its event can no longer be delivered) is taken over as if it had been purged.
    async claimWebhookDelivery(eventId, entryKey, { instanceId, now, expiresAt }) {
      const { rows } = await db.query(
        `INSERT INTO ${t.webhookClaims} AS c (event_id, entry_key, instance_id, expires_at) VALUES ($1, $2, $3, $5)
         ON CONFLICT (event_id, entry_key) DO UPDATE SET instance_id = EXCLUDED.instance_id, expires_at = EXCLUDED.expires_at
         WHERE c.expires_at <= $4
         RETURNING 1`,
        [eventId, entryKey, instanceId, now, expiresAt],
      );
      return rows.length > 0;
    },

    // One statement; a no-op when the widget is missing (the insert selects from it).
    async recordWebhookOutcome(accountId, slug, entryKey, { outcome, at }) {
      const column = outcome === 'success' ? 'last_success_at' : 'last_failure_at';
      try {
        await db.query(
          `INSERT INTO ${t.webhookOutcomes} (account_id, slug, entry_key, ${column})
           SELECT account_id, slug, $3, $4 FROM ${t.widgets} WHERE account_id = $1 AND slug = $2
           ON CONFLICT (account_id, slug, entry_key) DO UPDATE SET ${column} = EXCLUDED.${column}`,
          [accountId, slug, entryKey, at],
        );
      } catch (error) {
        if (errorCode(error) !== '23503') throw error; // the widget was deleted meanwhile: nothing to record
      }
    },

    async getWebhookOutcomes(accountId, slug) {
      const { rows } = await db.query<{ entry_key: string; last_success_at: string | null; last_failure_at: string | null }>(
        `SELECT entry_key, last_success_at, last_failure_at FROM ${t.webhookOutcomes}
         WHERE account_id = $1 AND slug = $2 ORDER BY entry_key COLLATE "C"`,
        [accountId, slug],
      );
      // Object.fromEntries defines own properties, so no key (e.g. __proto__) reaches a prototype.
      return Object.fromEntries(rows.map((row) => [row.entry_key, { lastSuccessAt: row.last_success_at, lastFailureAt: row.last_failure_at }]));
    },
  };
}
