import * as v from 'valibot';
import { generateToken, hashToken } from '../auth/tokens.js';
import { activityTemplateNames, widgetTemplateNames } from '../schemas/index.js';
import type { Subscription, WidgetPrivacy } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { Identifier, InvalidArgumentError, parseArgument, ProvidedToken } from './arguments.js';

/** Default concurrent-activity quota of a new account (the spec leaves the value open). */
export const DEFAULT_ACTIVITY_QUOTA = 5;

const SubscriptionSchema = v.picklist(['active', 'none']);
const PrivacySchema = v.picklist(['visible', 'hidden_when_locked']);
const Quota = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000));

const AccountInput = v.strictObject({
  id: Identifier,
  token: v.optional(ProvidedToken),
  subscription: v.optional(SubscriptionSchema, 'active'),
  activityQuota: v.optional(Quota, DEFAULT_ACTIVITY_QUOTA),
});
const ActivityInput = v.strictObject({
  account: Identifier,
  slug: Identifier,
  template: v.picklist(activityTemplateNames),
  dismissalDelayS: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(14_400)), 0),
});
const WidgetInput = v.strictObject({
  account: Identifier,
  slug: Identifier,
  template: v.picklist(widgetTemplateNames),
  staleAfter: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(604_800))), null),
  privacy: v.optional(PrivacySchema, 'visible'),
});
const DeviceInput = v.strictObject({ id: Identifier, account: Identifier, token: v.optional(ProvidedToken) });

export type AccountInput = v.InferInput<typeof AccountInput>;
export type ActivityInput = v.InferInput<typeof ActivityInput>;
export type WidgetInput = v.InferInput<typeof WidgetInput>;
export type DeviceInput = v.InferInput<typeof DeviceInput>;

/**
 * What the mobile app does, as functions an embedder calls from its own app-side code
 * (reference-deployment §7). Tokens are returned once, in clear, and stored hashed.
 */
export interface ManagementApi {
  /** Creates or replaces an account; returns its API token (generated unless given). */
  createAccount(input: AccountInput): Promise<{ id: string; token: string }>;
  deleteAccount(accountId: string): Promise<boolean>;
  /** Issues a new API token; the old one stops working at once. */
  rotateToken(accountId: string): Promise<string>;
  setSubscription(accountId: string, subscription: Subscription): Promise<void>;
  setActivityQuota(accountId: string, quota: number): Promise<void>;
  /** Creates an activity, or changes its template / dismissal delay. */
  createActivity(input: ActivityInput): Promise<void>;
  deleteActivity(accountId: string, slug: string): Promise<boolean>;
  /** Creates a widget, or changes its template / stale_after / privacy. */
  createWidget(input: WidgetInput): Promise<void>;
  deleteWidget(accountId: string, slug: string): Promise<boolean>;
  /** Registers (or replaces) a device of an account; returns its device token. */
  registerDevice(input: DeviceInput): Promise<{ id: string; token: string }>;
  deleteDevice(deviceId: string): Promise<boolean>;
  /**
   * The seed's operations (reference-deployment §7): each creates what is missing and
   * leaves an existing record exactly as the app and the API changed it, atomically (two
   * instances applying one seed at once create it once). An account's or device's token
   * is set only when it is created: the answer holds it then, and is null when the
   * record already existed (its token is stored hashed, so it cannot be told).
   */
  createAccountIfAbsent(input: AccountInput): Promise<{ id: string; token: string } | null>;
  /** Creates the activity unless the account has one with that slug; true if it did. */
  createActivityIfAbsent(input: ActivityInput): Promise<boolean>;
  /** Creates the widget unless the account has one with that slug; true if it did. */
  createWidgetIfAbsent(input: WidgetInput): Promise<boolean>;
  /** Registers the device unless a device with that id exists (of any account); null then. */
  registerDeviceIfAbsent(input: DeviceInput): Promise<{ id: string; token: string } | null>;
  /** Shows a widget on a device of another account. */
  shareWidget(accountId: string, slug: string, deviceId: string): Promise<void>;
  unshareWidget(accountId: string, slug: string, deviceId: string): Promise<boolean>;
}

export function createManagementApi(storage: Storage): ManagementApi {
  const requireAccount = async (accountId: string): Promise<void> => {
    if (!(await storage.getAccount(accountId))) throw new InvalidArgumentError(`no account "${accountId}"`);
  };
  const requireTrue = (done: boolean, what: string): void => {
    if (!done) throw new InvalidArgumentError(what);
  };

  return {
    async createAccount(input) {
      const account = parseArgument(AccountInput, input, 'createAccount');
      const token = account.token ?? generateToken('tok');
      await storage.upsertAccount({
        id: account.id,
        tokenHash: hashToken(token),
        subscription: account.subscription,
        activityQuota: account.activityQuota,
      });
      return { id: account.id, token };
    },
    deleteAccount: (accountId) => storage.deleteAccount(accountId),
    async rotateToken(accountId) {
      const token = generateToken('tok');
      requireTrue(await storage.setAccountTokenHash(accountId, hashToken(token)), `no account "${accountId}"`);
      return token;
    },
    async setSubscription(accountId, subscription) {
      const value = parseArgument(SubscriptionSchema, subscription, 'setSubscription');
      requireTrue(await storage.updateAccount(accountId, { subscription: value }), `no account "${accountId}"`);
    },
    async setActivityQuota(accountId, quota) {
      const value = parseArgument(Quota, quota, 'setActivityQuota');
      requireTrue(await storage.updateAccount(accountId, { activityQuota: value }), `no account "${accountId}"`);
    },
    async createActivity(input) {
      const activity = parseArgument(ActivityInput, input, 'createActivity');
      await requireAccount(activity.account);
      await storage.putActivity({
        accountId: activity.account,
        slug: activity.slug,
        template: activity.template,
        dismissalDelayS: activity.dismissalDelayS,
      });
    },
    deleteActivity: (accountId, slug) => storage.deleteActivity(accountId, slug),
    async createWidget(input) {
      const widget = parseArgument(WidgetInput, input, 'createWidget');
      await requireAccount(widget.account);
      await storage.putWidget({
        accountId: widget.account,
        slug: widget.slug,
        template: widget.template,
        staleAfter: widget.staleAfter,
        privacy: widget.privacy as WidgetPrivacy,
      });
    },
    deleteWidget: (accountId, slug) => storage.deleteWidget(accountId, slug),
    async registerDevice(input) {
      const device = parseArgument(DeviceInput, input, 'registerDevice');
      await requireAccount(device.account);
      const token = device.token ?? generateToken('dev');
      await storage.upsertDevice({ id: device.id, accountId: device.account, tokenHash: hashToken(token) });
      return { id: device.id, token };
    },
    deleteDevice: (deviceId) => storage.deleteDevice(deviceId),
    async createAccountIfAbsent(input) {
      const account = parseArgument(AccountInput, input, 'createAccountIfAbsent');
      const token = account.token ?? generateToken('tok');
      const created = await storage.createIfAbsent({
        kind: 'account',
        account: { id: account.id, tokenHash: hashToken(token), subscription: account.subscription, activityQuota: account.activityQuota },
      });
      return created ? { id: account.id, token } : null;
    },
    async createActivityIfAbsent(input) {
      const activity = parseArgument(ActivityInput, input, 'createActivityIfAbsent');
      await requireAccount(activity.account);
      return storage.createIfAbsent({
        kind: 'activity',
        definition: { accountId: activity.account, slug: activity.slug, template: activity.template, dismissalDelayS: activity.dismissalDelayS },
      });
    },
    async createWidgetIfAbsent(input) {
      const widget = parseArgument(WidgetInput, input, 'createWidgetIfAbsent');
      await requireAccount(widget.account);
      return storage.createIfAbsent({
        kind: 'widget',
        definition: {
          accountId: widget.account,
          slug: widget.slug,
          template: widget.template,
          staleAfter: widget.staleAfter,
          privacy: widget.privacy as WidgetPrivacy,
        },
      });
    },
    async registerDeviceIfAbsent(input) {
      const device = parseArgument(DeviceInput, input, 'registerDeviceIfAbsent');
      await requireAccount(device.account);
      const token = device.token ?? generateToken('dev');
      const created = await storage.createIfAbsent({
        kind: 'device',
        device: { id: device.id, accountId: device.account, tokenHash: hashToken(token) },
      });
      return created ? { id: device.id, token } : null;
    },
    async shareWidget(accountId, slug, deviceId) {
      const shared = await storage.shareWidget(accountId, slug, deviceId);
      requireTrue(shared, `cannot share widget "${accountId}/${slug}" with device "${deviceId}": one of them does not exist`);
    },
    unshareWidget: (accountId, slug, deviceId) => storage.unshareWidget(accountId, slug, deviceId),
  };
}
