import { actionKindIn, isoTime, type WidgetStore } from '@tilecast/core/storage';
import { removeJob, writeJob, writtenAudience } from './delivery-jobs.js';
import { byCodeUnit, copy, guardRefusal, inner, pairKey, parsePairKey, type MemoryState, type WidgetEntry } from './state.js';

export function findWidget(state: MemoryState, accountId: string, slug: string): WidgetEntry | undefined {
  return state.widgets.get(accountId)?.get(slug);
}

/** Removes a widget with its shares, webhook map, delivery outcomes, throttle window and job. */
export function removeWidget(state: MemoryState, accountId: string, slug: string): boolean {
  const widgets = state.widgets.get(accountId);
  const entry = widgets?.get(slug);
  if (!widgets || !entry) return false;
  const key = pairKey(accountId, slug);
  for (const deviceId of entry.shares) {
    const shared = state.sharesByDevice.get(deviceId);
    shared?.delete(key);
    if (shared?.size === 0) state.sharesByDevice.delete(deviceId);
  }
  widgets.delete(slug);
  if (widgets.size === 0) state.widgets.delete(accountId);
  removeJob(state, accountId, 'widget', slug);
  return true;
}

export function widgetMethods(state: MemoryState): WidgetStore {
  return {
    async putWidget(definition) {
      const widgets = inner(state.widgets, definition.accountId);
      const existing = widgets.get(definition.slug);
      const keep = existing !== undefined && existing.record.template === definition.template;
      const record = {
        accountId: definition.accountId,
        slug: definition.slug,
        template: definition.template,
        staleAfter: definition.staleAfter,
        privacy: definition.privacy,
        content: keep ? existing.record.content : null,
        updatedAt: keep ? existing.record.updatedAt : null,
      };
      if (existing) existing.record = record;
      else widgets.set(definition.slug, { record, shares: new Set(), webhookMap: {}, outcomes: new Map(), windowUntil: 0 });
    },

    async deleteWidget(accountId, slug) {
      return removeWidget(state, accountId, slug);
    },

    async getWidget(accountId, slug) {
      const entry = findWidget(state, accountId, slug);
      return entry ? copy(entry.record) : null;
    },

    async listWidgets(accountId) {
      const widgets = state.widgets.get(accountId);
      if (!widgets) return [];
      return [...widgets.keys()].sort(byCodeUnit).map((slug) => copy(widgets.get(slug)!.record));
    },

    async listWidgetsSharedWith(deviceId) {
      const keys = [...(state.sharesByDevice.get(deviceId) ?? [])].map(parsePairKey);
      keys.sort(([a1, s1], [a2, s2]) => byCodeUnit(a1, a2) || byCodeUnit(s1, s2));
      return keys.flatMap(([accountId, slug]) => {
        const entry = findWidget(state, accountId, slug);
        return entry ? [copy(entry.record)] : [];
      });
    },

    // ATOMIC: the guard is checked, the content and the job written with no await in between
    // (docs/contract/durable-delivery.md#durable-outbox).
    async setWidgetContent(accountId, slug, update) {
      const entry = findWidget(state, accountId, slug);
      const refusal = guardRefusal(state, accountId, entry?.record.template, update.guard);
      if (refusal !== null || entry === undefined) return { ok: false, reason: refusal ?? 'not_found' };
      entry.record.content = update.content; // handed over by the caller (Storage rules)
      if (update.staleAfter !== undefined) entry.record.staleAfter = update.staleAfter;
      entry.record.updatedAt = isoTime(update.now);
      const job = writeJob(state, { accountId, kind: 'widget', slug }, 'changed', update.now, update.claim);
      // The audience of a job claimed here, read in the same step (docs/decisions/0119-audience-in-the-write.md).
      const audience = writtenAudience(state, job, update.claim);
      return audience === undefined ? { ok: true, widget: { ...entry.record }, job } : { ok: true, widget: { ...entry.record }, job, audience };
    },

    async shareWidget(accountId, slug, deviceId) {
      const entry = findWidget(state, accountId, slug);
      const device = state.devices.get(deviceId);
      // A device of the widget's own account shows it already: a share would list it twice.
      if (!entry || !device || device.accountId === accountId) return false;
      entry.shares.add(deviceId);
      let shared = state.sharesByDevice.get(deviceId);
      if (!shared) {
        shared = new Set();
        state.sharesByDevice.set(deviceId, shared);
      }
      shared.add(pairKey(accountId, slug));
      return true;
    },

    async unshareWidget(accountId, slug, deviceId) {
      const entry = findWidget(state, accountId, slug);
      if (!entry?.shares.delete(deviceId)) return false;
      const shared = state.sharesByDevice.get(deviceId);
      shared?.delete(pairKey(accountId, slug));
      if (shared?.size === 0) state.sharesByDevice.delete(deviceId);
      return true;
    },

    async listWidgetShares(accountId, slug) {
      const entry = findWidget(state, accountId, slug);
      return entry ? [...entry.shares].sort(byCodeUnit) : [];
    },

    // Read in place: nothing of the content leaves the store, so nothing is copied.
    async getPressTarget(accountId, slug, actionId, deviceId) {
      const entry = findWidget(state, accountId, slug);
      if (entry === undefined) return null;
      return { action: actionKindIn(entry.record.content, actionId), sharedWithDevice: entry.shares.has(deviceId), hasWebhooks: hasEntries(entry.webhookMap) };
    },
  };
}

function hasEntries(map: Record<string, unknown>): boolean {
  for (const key in map) if (Object.hasOwn(map, key)) return true;
  return false;
}
