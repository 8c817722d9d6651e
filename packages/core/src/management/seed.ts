import * as v from 'valibot';
import { Identifier, parseArgument, ProvidedToken } from './arguments.js';
import { activityDeliveries, type ManagementApi } from './management-api.js';

const SeedDevice = v.strictObject({ id: Identifier, token: v.optional(ProvidedToken) });
const SeedActivity = v.strictObject({
  slug: Identifier,
  template: v.string(),
  dismissal_delay_s: v.optional(v.number()),
  // docs/contract/broadcast-channels.md#broadcast-reference-settings: as the management API takes them.
  delivery: v.optional(v.picklist(activityDeliveries)),
  frequent_updates: v.optional(v.boolean()),
});
const SeedWidget = v.strictObject({
  slug: Identifier,
  template: v.string(),
  stale_after: v.optional(v.nullable(v.number())),
  privacy: v.optional(v.picklist(['visible', 'hidden_when_locked'])),
  shared_with: v.optional(v.array(Identifier), []),
});
const SeedAccount = v.strictObject({
  id: Identifier,
  token: v.optional(ProvidedToken),
  subscription: v.optional(v.picklist(['active', 'none'])),
  activity_quota: v.optional(v.number()),
  devices: v.optional(v.array(SeedDevice), []),
  activities: v.optional(v.array(SeedActivity), []),
  widgets: v.optional(v.array(SeedWidget), []),
});
export const SeedFile = v.strictObject({ accounts: v.array(SeedAccount) });
export type SeedFile = v.InferInput<typeof SeedFile>;

export interface SeedResult {
  /**
   * The seeded accounts, in file order. `created` is false for an account the store
   * already had: it was left as it is, and its token (stored hashed) is null.
   */
  accounts: { id: string; created: boolean; token: string | null }[];
  /** The seeded devices, likewise: a token only for a device created now. */
  devices: { id: string; account: string; created: boolean; token: string | null }[];
}

/**
 * Loads a seed file (docs/contract/deployment.md#seed-file, docs/contract/deployment.md#env-seed) through the management API: what it
 * declares and the store lacks is created; what exists is left as the app and the API
 * changed it (a rotated token, an ended subscription, a changed `stale_after` survive a
 * restart). A seed token is set only when its account or device is created. Each step is
 * an atomic create-if-absent, so instances starting at once with one seed never revert
 * each other. Shares are applied last (sharing is idempotent), so a widget may be shared
 * with a device of an account that comes later in the file.
 */
export async function loadSeed(management: ManagementApi, input: unknown): Promise<SeedResult> {
  const seed = parseArgument(SeedFile, input, 'seed file');
  const result: SeedResult = { accounts: [], devices: [] };
  for (const account of seed.accounts) {
    const created = await management.createAccountIfAbsent({
      id: account.id,
      token: account.token,
      subscription: account.subscription,
      activityQuota: account.activity_quota,
    });
    result.accounts.push({ id: account.id, created: created !== null, token: created?.token ?? null });
    for (const device of account.devices) {
      const registered = await management.registerDeviceIfAbsent({ id: device.id, account: account.id, token: device.token });
      result.devices.push({ id: device.id, account: account.id, created: registered !== null, token: registered?.token ?? null });
    }
    for (const activity of account.activities) {
      await management.createActivityIfAbsent({
        account: account.id,
        slug: activity.slug,
        template: activity.template as never,
        dismissalDelayS: activity.dismissal_delay_s,
        delivery: activity.delivery,
        frequentUpdates: activity.frequent_updates,
      });
    }
    for (const widget of account.widgets) {
      await management.createWidgetIfAbsent({
        account: account.id,
        slug: widget.slug,
        template: widget.template as never,
        staleAfter: widget.stale_after,
        privacy: widget.privacy,
      });
    }
  }
  for (const account of seed.accounts) {
    for (const widget of account.widgets) {
      for (const deviceId of widget.shared_with) await management.shareWidget(account.id, widget.slug, deviceId);
    }
  }
  return result;
}
