import * as v from 'valibot';
import { generateToken, hashToken } from '../auth/tokens.js';
import { activityTemplateNames, widgetTemplateNames } from '../schemas/index.js';
import type { AccountRecord, ActivityDefinition, ActivityDelivery, Subscription, WidgetPrivacy } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { Identifier, OwnDeviceShareError, parseArgument, ProvidedToken, UnknownRecordError } from './arguments.js';
import { type DeadLetterSummary, type DeliveryListInput, DeliveryListSchema, type DeliverySummary, deadLetters, pendingDeliveries } from './deliveries.js';

/** Default concurrent-activity quota of a new account (docs/contract/deployment.md#management-defaults). */
export const DEFAULT_ACTIVITY_QUOTA = 5;

/** The most accounts one `listAccounts` call returns, and its default page size (docs/contract/deployment.md#management-account-listing). */
export const MAX_ACCOUNT_PAGE = 500;

const SubscriptionSchema = v.picklist(['active', 'none']);
const PrivacySchema = v.picklist(['visible', 'hidden_when_locked']);
const Quota = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000));

const AccountInput = v.strictObject({
  id: Identifier,
  token: v.optional(ProvidedToken),
  subscription: v.optional(SubscriptionSchema, 'active'),
  activityQuota: v.optional(Quota, DEFAULT_ACTIVITY_QUOTA),
});
/** How an activity's updates reach iPhones (docs/contract/broadcast-channels.md#broadcast-activity-delivery). */
export const activityDeliveries = ['tokens', 'broadcast'] as const satisfies readonly ActivityDelivery[];
const ActivityInput = v.strictObject({
  account: Identifier,
  slug: Identifier,
  template: v.picklist(activityTemplateNames),
  dismissalDelayS: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(14_400)), 0),
  // docs/contract/broadcast-channels.md#broadcast-activity-delivery: per-token unless asked.
  delivery: v.optional(v.picklist(activityDeliveries), 'tokens'),
  // docs/contract/broadcast-channels.md#broadcast-storage-policy
  frequentUpdates: v.optional(v.boolean(), false),
});
const WidgetInput = v.strictObject({
  account: Identifier,
  slug: Identifier,
  template: v.picklist(widgetTemplateNames),
  staleAfter: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(604_800))), null),
  privacy: v.optional(PrivacySchema, 'visible'),
});
const DeviceInput = v.strictObject({ id: Identifier, account: Identifier, token: v.optional(ProvidedToken) });
const AccountPageInput = v.strictObject({
  after: v.optional(v.string()), // any id the store may hold, not only those of Identifier
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_ACCOUNT_PAGE)), MAX_ACCOUNT_PAGE),
});

export type AccountInput = v.InferInput<typeof AccountInput>;
export type ActivityInput = v.InferInput<typeof ActivityInput>;
export type WidgetInput = v.InferInput<typeof WidgetInput>;
export type DeviceInput = v.InferInput<typeof DeviceInput>;
export type AccountPageInput = v.InferInput<typeof AccountPageInput>;

/** An account as operators see it: everything but its token (stored hashed, never shown). */
export type AccountSummary = Omit<AccountRecord, 'tokenHash'>;

/**
 * What the mobile app does, as functions an embedder calls from its own app-side code
 * (docs/contract/deployment.md#management-api), and what an operator does with the `tilecast` CLI. Tokens are
 * returned once, in clear, and stored hashed.
 *
 * Errors: `InvalidArgumentError` for an input it cannot accept; its subclasses
 * `UnknownRecordError` when the account, widget or device named does not exist (also for
 * the account a delivery listing is narrowed to), and
 * `OwnDeviceShareError` for a share with a device of the widget's own account. Deletions
 * answer false instead when there was nothing to delete.
 */
export interface ManagementApi {
  /** Creates or replaces an account; returns its API token (generated unless given). */
  createAccount(input: AccountInput): Promise<{ id: string; token: string }>;
  deleteAccount(accountId: string): Promise<boolean>;
  /**
   * One page of accounts sorted by id (code units), after `after` (default: from the
   * first), at most `limit` (default and maximum `MAX_ACCOUNT_PAGE`). Tokens are never listed.
   */
  listAccounts(page?: AccountPageInput): Promise<AccountSummary[]>;
  /** Issues a new API token; the old one stops working at once. */
  rotateToken(accountId: string): Promise<string>;
  setSubscription(accountId: string, subscription: Subscription): Promise<void>;
  setActivityQuota(accountId: string, quota: number): Promise<void>;
  /**
   * Creates an activity, or changes its template / dismissal delay / delivery (`tokens`,
   * the default, or `broadcast`) / `frequentUpdates` (default false). A changed delivery
   * keeps the channels stored; a broadcast activity gets new ones at its next start.
   */
  createActivity(input: ActivityInput): Promise<void>;
  deleteActivity(accountId: string, slug: string): Promise<boolean>;
  /** Creates a widget, or changes its template / stale_after / privacy. */
  createWidget(input: WidgetInput): Promise<void>;
  deleteWidget(accountId: string, slug: string): Promise<boolean>;
  /**
   * Registers (or replaces) a device of an account; returns its device token. Registering
   * it under another account moves it: the shares it had (made for its old account) go.
   */
  registerDevice(input: DeviceInput): Promise<{ id: string; token: string }>;
  deleteDevice(deviceId: string): Promise<boolean>;
  /**
   * The seed's operations (docs/contract/deployment.md#env-seed): each creates what is missing and
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
  /**
   * Shows a widget on a device of another account. A device of the widget's own account
   * shows it already: `OwnDeviceShareError`, and nothing is shared.
   */
  shareWidget(accountId: string, slug: string, deviceId: string): Promise<void>;
  unshareWidget(accountId: string, slug: string, deviceId: string): Promise<boolean>;
  /**
   * Delivery jobs not done yet (docs/contract/durable-delivery.md#durable-operator-listing),
   * oldest first: every account's, or `accountId`'s (which must exist), at most `limit`
   * (default `DEFAULT_DELIVERY_PAGE`, at most `MAX_DELIVERY_PAGE`).
   */
  listDeliveries(query?: DeliveryListInput): Promise<DeliverySummary[]>;
  /**
   * Pushes that failed for good, kept 7 days (docs/contract/durable-delivery.md#durable-operator-listing),
   * newest first, with the same query as `listDeliveries`.
   */
  listDeadLetters(query?: DeliveryListInput): Promise<DeadLetterSummary[]>;
}

/** The stored definition of a checked `ActivityInput`. */
function activityDefinition(activity: v.InferOutput<typeof ActivityInput>): ActivityDefinition {
  return {
    accountId: activity.account,
    slug: activity.slug,
    template: activity.template,
    dismissalDelayS: activity.dismissalDelayS,
    delivery: activity.delivery,
    frequentUpdates: activity.frequentUpdates,
  };
}

export function createManagementApi(storage: Storage): ManagementApi {
  const requireAccount = async (accountId: string): Promise<void> => {
    if (!(await storage.getAccount(accountId))) throw new UnknownRecordError('account', accountId);
  };
  const requireAccountChanged = (changed: boolean, accountId: string): void => {
    if (!changed) throw new UnknownRecordError('account', accountId);
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
    async listAccounts(page = {}) {
      const { after, limit } = parseArgument(AccountPageInput, page, 'listAccounts');
      const accounts = await storage.listAccounts({ after: after ?? null, limit });
      return accounts.map(({ id, subscription, activityQuota }) => ({ id, subscription, activityQuota }));
    },
    async rotateToken(accountId) {
      const token = generateToken('tok');
      requireAccountChanged(await storage.setAccountTokenHash(accountId, hashToken(token)), accountId);
      return token;
    },
    async setSubscription(accountId, subscription) {
      const value = parseArgument(SubscriptionSchema, subscription, 'setSubscription');
      requireAccountChanged(await storage.updateAccount(accountId, { subscription: value }), accountId);
    },
    async setActivityQuota(accountId, quota) {
      const value = parseArgument(Quota, quota, 'setActivityQuota');
      requireAccountChanged(await storage.updateAccount(accountId, { activityQuota: value }), accountId);
    },
    async createActivity(input) {
      const activity = parseArgument(ActivityInput, input, 'createActivity');
      await requireAccount(activity.account);
      await storage.putActivity(activityDefinition(activity));
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
      return storage.createIfAbsent({ kind: 'activity', definition: activityDefinition(activity) });
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
      if (await storage.shareWidget(accountId, slug, deviceId)) return;
      // Why it was refused, for the message (either may have changed meanwhile: the widget is checked first).
      if (!(await storage.getWidget(accountId, slug))) throw new UnknownRecordError('widget', `${accountId}/${slug}`);
      if ((await storage.getDevice(deviceId))?.accountId === accountId) throw new OwnDeviceShareError(accountId, slug, deviceId);
      throw new UnknownRecordError('device', deviceId);
    },
    unshareWidget: (accountId, slug, deviceId) => storage.unshareWidget(accountId, slug, deviceId),
    async listDeliveries(query = {}) {
      return pendingDeliveries(storage, parseArgument(DeliveryListSchema, query, 'listDeliveries'));
    },
    async listDeadLetters(query = {}) {
      return deadLetters(storage, parseArgument(DeliveryListSchema, query, 'listDeadLetters'));
    },
  };
}
