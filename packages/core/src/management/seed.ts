import * as v from 'valibot';
import { Identifier, parseArgument, ProvidedToken } from './arguments.js';
import type { ManagementApi } from './management-api.js';

const SeedDevice = v.strictObject({ id: Identifier, token: v.optional(ProvidedToken) });
const SeedActivity = v.strictObject({
  slug: Identifier,
  template: v.string(),
  dismissal_delay_s: v.optional(v.number()),
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
  /** API tokens of the seeded accounts (as given, or generated when the seed had none). */
  accounts: { id: string; token: string }[];
  devices: { id: string; account: string; token: string }[];
}

/**
 * Loads a seed file (reference-deployment §7) through the management API, as an upsert.
 * Shares are applied last, so a widget may be shared with a device of an account that
 * comes later in the file.
 */
export async function loadSeed(management: ManagementApi, input: unknown): Promise<SeedResult> {
  const seed = parseArgument(SeedFile, input, 'seed file');
  const result: SeedResult = { accounts: [], devices: [] };
  for (const account of seed.accounts) {
    result.accounts.push(
      await management.createAccount({
        id: account.id,
        token: account.token,
        subscription: account.subscription,
        activityQuota: account.activity_quota,
      }),
    );
    for (const device of account.devices) {
      const { token } = await management.registerDevice({ id: device.id, account: account.id, token: device.token });
      result.devices.push({ id: device.id, account: account.id, token });
    }
    for (const activity of account.activities) {
      await management.createActivity({
        account: account.id,
        slug: activity.slug,
        template: activity.template as never,
        dismissalDelayS: activity.dismissal_delay_s,
      });
    }
    for (const widget of account.widgets) {
      await management.createWidget({
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
