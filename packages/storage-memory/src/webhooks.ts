import type { WebhookStore } from '@tilecast/core/storage';
import { copy, noteAppended, pairKey, type MemoryState } from './state.js';
import { findWidget } from './widgets.js';

export function webhookMethods(state: MemoryState): WebhookStore {
  return {
    async setWebhookMap(accountId, slug, map) {
      const entry = findWidget(state, accountId, slug);
      if (!entry) return false;
      entry.webhookMap = copy(map);
      return true;
    },

    async getWebhookMap(accountId, slug) {
      const entry = findWidget(state, accountId, slug);
      return entry ? copy(entry.webhookMap) : null;
    },

    // ATOMIC: lookup and insert in one synchronous step. An expired claim (its event can
    // no longer be delivered) no longer blocks, exactly as if it had been purged.
    async claimWebhookDelivery(eventId, entryKey, { instanceId, now, expiresAt }) {
      const key = pairKey(eventId, entryKey);
      const claim = state.claims.get(key);
      if (claim && claim.expiresAt > now) return false;
      if (claim) state.claims.delete(key); // appended: the map stays in claim order
      state.claims.set(key, { instanceId, expiresAt });
      noteAppended(state.claimOrder, expiresAt);
      return true;
    },

    async recordWebhookOutcome(accountId, slug, entryKey, { outcome, at }) {
      const entry = findWidget(state, accountId, slug);
      if (!entry) return;
      const times = entry.outcomes.get(entryKey) ?? { lastSuccessAt: null, lastFailureAt: null };
      if (outcome === 'success') times.lastSuccessAt = at;
      else times.lastFailureAt = at;
      entry.outcomes.set(entryKey, times);
    },

    async getWebhookOutcomes(accountId, slug) {
      const entry = findWidget(state, accountId, slug);
      // Object.fromEntries defines own properties, so no key can reach a prototype.
      return entry ? Object.fromEntries([...entry.outcomes].map(([key, times]) => [key, { ...times }])) : {};
    },
  };
}
