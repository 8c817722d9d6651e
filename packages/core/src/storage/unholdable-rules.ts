import { isHoldable } from './holdable.js';
import type { CredentialQuery, DeviceIdentity, DeviceRecord, WriteGuard, WriteRefusal } from './records.js';
import type { Storage } from './storage.js';
import { writeRefusal } from './write-guard.js';

type Method<K extends keyof Storage> = NonNullable<Storage[K]>;
type Args<K extends keyof Storage> = Parameters<Method<K>>;

/**
 * Where the strings of one argument of type `T` are: `true` for a string (null or
 * undefined holds), an object of the fields that hold some, `[spec]` for each element of
 * an array, `'json'` for every string and key of a JSON value.
 */
export type Strings<T> = [T] extends [string | null | undefined]
  ? true
  : T extends readonly (infer E)[]
    ? readonly [Strings<E>]
    : T extends object
      ? 'json' | { readonly [F in keyof T]?: Strings<T[F]> }
      : never;

/** Any `Strings`, as the guard reads them. */
export type StringSpec = true | 'json' | readonly [StringSpec] | { readonly [field: string]: StringSpec | undefined };

/**
 * The `Strings` of each argument of a method, in order, every argument listed (the guard
 * takes as many arguments as the list has); null where an argument holds none.
 */
type StringsOf<A extends readonly unknown[]> = { readonly [I in keyof A]-?: Strings<A[I]> | null };
export type ArgStrings<K extends keyof Storage> = StringsOf<Args<K>>;

/**
 * What the guard does for one `Storage` method:
 * - `keys`: the strings that name the record read or changed. One no store can hold names
 *   nothing: the call answers `absent(storage, ...args)`, what the store answers for a
 *   record that does not exist, and never reaches the store.
 * - `values`: the strings the call would record. One no store can hold rejects the call
 *   with a `TypeError`, unless `exists` (asked then only) says that the record they would
 *   go to is missing: then, as the store would, it answers `absent`.
 * - `wrap`: a method whose answer depends on which of its strings hold, wrapped by hand.
 * - `'no strings'`: the method takes none and is called as it is.
 */
export type UnholdableRule<K extends keyof Storage> =
  | 'no strings'
  | {
      keys?: ArgStrings<K>;
      absent: (storage: Storage, ...args: Args<K>) => ReturnType<Method<K>>;
      values?: ArgStrings<K>;
      exists?: (storage: Storage, ...args: Args<K>) => Promise<boolean>;
    }
  | { values: ArgStrings<K>; keys?: undefined; absent?: undefined; exists?: undefined }
  | { wrap: (inner: Method<K>, storage: Storage) => Method<K> };

// What "not found" looks like. Fresh values: a caller may change what it is answered.
const NULL = () => Promise.resolve(null);
const FALSE = () => Promise.resolve(false);
const NONE = () => Promise.resolve([]);
const ZERO = () => Promise.resolve(0);
const DONE = () => Promise.resolve();
const EMPTY_MAP = <V>() => Promise.resolve(new Map<string, V>());

const IDENTITY = { accountId: true, tokenHash: true } as const;
const RESOURCE = { accountId: true, kind: true, slug: true } as const;
const JOB_REF = { ...RESOURCE, instanceId: true } as const;

/**
 * `setWidgetContent` and `applyActivityUpdate`: a write to a record that cannot exist, or
 * guarded by a token hash no account holds, is refused in `writeRefusal`'s order. A claim's
 * instance id is recorded on the job (a missing record is refused first, as in every store).
 */
const guardedPublish = (exists: (storage: Storage, accountId: string, slug: string) => Promise<boolean>) =>
  ({
    keys: [true, true, { guard: { tokenHash: true } }],
    absent: (storage: Storage, accountId: string, _slug: string, update: { guard?: WriteGuard }) => absentWrite(storage, accountId, update.guard),
    values: [null, null, { claim: { instanceId: true } }],
    exists: (storage: Storage, accountId: string, slug: string) => exists(storage, accountId, slug),
  }) as const;

/**
 * Every `Storage` method and its strings, by the rules header of `storage.ts`. Typed
 * against `Storage`: a method added there without a row here fails to compile.
 */
export const UNHOLDABLE_RULES: { readonly [K in keyof Storage]-?: UnholdableRule<K> } = {
  // ── accounts
  upsertAccount: { values: [{ id: true, tokenHash: true }] },
  deleteAccount: { keys: [true], absent: FALSE },
  getAccount: { keys: [true], absent: NULL },
  findAccountByTokenHash: { keys: [true], absent: NULL },
  setAccountTokenHash: {
    keys: [true, null],
    absent: FALSE,
    values: [null, true],
    exists: async (storage, accountId) => (await storage.getAccount(accountId)) !== null,
  },
  updateAccount: { keys: [true, null], absent: FALSE },
  // An `after` no store can hold names no position: the page is empty.
  listAccounts: { keys: [{ after: true }], absent: NONE },
  createIfAbsent: {
    values: [{ account: { id: true, tokenHash: true }, device: { id: true, accountId: true, tokenHash: true }, definition: { accountId: true, slug: true } }],
  },

  // ── activities
  putActivity: { values: [{ accountId: true, slug: true }] },
  deleteActivity: { keys: [true, true], absent: FALSE },
  getActivity: { keys: [true, true], absent: NULL },
  applyActivityUpdate: guardedPublish(async (storage, accountId, slug) => (await storage.getActivity(accountId, slug)) !== null),
  listActivities: { keys: [true], absent: NONE },

  // ── widgets
  putWidget: { values: [{ accountId: true, slug: true }] },
  deleteWidget: { keys: [true, true], absent: FALSE },
  getWidget: { keys: [true, true], absent: NULL },
  setWidgetContent: guardedPublish(widgetExists),
  listWidgets: { keys: [true], absent: NONE },
  listWidgetsSharedWith: { keys: [true], absent: NONE },
  shareWidget: { keys: [true, true, true], absent: FALSE },
  unshareWidget: { keys: [true, true, true], absent: FALSE },
  listWidgetShares: { keys: [true, true], absent: NONE },
  getPressTarget: {
    wrap: (inner) => (accountId, slug, actionId, deviceId) => {
      if (!isHoldable(accountId) || !isHoldable(slug)) return NULL();
      if (isHoldable(actionId) && isHoldable(deviceId)) return inner(accountId, slug, actionId, deviceId);
      return pressTargetOfUnholdable(inner, accountId, slug, actionId, deviceId);
    },
  },

  // ── devices
  upsertDevice: { values: [{ id: true, accountId: true, tokenHash: true }] },
  deleteDevice: { keys: [true], absent: FALSE },
  getDevice: { keys: [true], absent: NULL },
  findDeviceByTokenHash: { keys: [true], absent: NULL },
  listAccountDevices: { keys: [true], absent: NONE },
  listAccountDeviceIds: { keys: [true], absent: NONE },

  // ── credentials of open streams: such an entry never holds; the others are asked as usual
  checkCredentials: { wrap: (inner) => (query) => (credentialsHold(query) ? inner(query) : checkHoldableCredentials(inner, query)) },

  // ── event log and stream slots: a lease is a write, its renewal and release a change
  appendEvent: { values: [true, null] },
  readEvents: { keys: [true, null], absent: NONE },
  lastEventPosition: { keys: [true], absent: ZERO },
  countEvents: 'no strings',
  subscribeEvents: 'no strings',
  acquireEventStreamSlot: { values: [true, true, null] },
  renewEventStreamSlot: { keys: [true, true, null], absent: FALSE },
  releaseEventStreamSlot: { keys: [true, true], absent: DONE },
  acquireDeviceStreamSlot: { values: [true, true, null] },
  renewDeviceStreamSlot: { keys: [true, true, null], absent: FALSE },
  releaseDeviceStreamSlot: { keys: [true, true], absent: DONE },

  // ── presses
  admitPress: { values: [{ key: true, accountId: true, note: { widgetKey: true, deviceId: true }, rules: [{ key: true }] }] },
  notePress: { values: [{ widgetKey: true, deviceId: true }] },
  listRecentPressers: { keys: [true, null], absent: NONE },

  // ── delivery jobs: a resource or holder no store can hold has no job; a claimant's
  // instance id and a cursor are recorded, and so is every string of a dead letter
  claimDeliveryJob: { keys: [RESOURCE, null, null], absent: NULL, values: [null, null, { instanceId: true }] },
  claimDueDeliveryJobs: { values: [{ instanceId: true }] },
  recordDeliveryProgress: { keys: [JOB_REF, null], absent: FALSE, values: [null, { cursor: true }] },
  completeDeliveryJob: { keys: [JOB_REF], absent: FALSE },
  releaseDeliveryJob: { keys: [JOB_REF], absent: DONE },
  listDeliveryJobs: { keys: [{ accountId: true }], absent: NONE },
  deliveryJobStats: 'no strings',
  addDeadLetters: { values: [[{ accountId: true, kind: true, slug: true, deviceId: true, transport: true, reason: true }]] },
  listDeadLetters: { keys: [{ accountId: true }], absent: NONE },

  // ── webhooks: a missing widget answers first, as in every store
  setWebhookMap: { keys: [true, true, null], absent: FALSE, values: [null, null, 'json'], exists: widgetExists },
  getWebhookMap: { keys: [true, true], absent: NULL },
  claimWebhookDelivery: { values: [true, true, { instanceId: true }] },
  recordWebhookOutcome: { keys: [true, true, null, null], absent: DONE, values: [null, null, true, null], exists: widgetExists },
  getWebhookOutcomes: { keys: [true, true], absent: () => Promise.resolve({}) },

  // ── APNs registrations: a missing device or activity answers first, as in every store;
  // an identity no store can hold is never the device's
  setApnsRegistration: {
    keys: [true, null, { ifDevice: IDENTITY }],
    absent: FALSE,
    values: [null, { pushToStart: true, widgets: true }, null],
    exists: async (storage, deviceId, _registration, condition) => (await deviceStill(storage, deviceId, condition?.ifDevice)) !== null,
  },
  getApnsRegistration: { keys: [true], absent: NULL },
  getApnsRegistrations: { wrap: (inner) => (deviceIds) => readHoldable(deviceIds, inner) },
  // An activity no store can hold has no update token anywhere: nothing to read.
  getActivityPushTargets: {
    wrap: (inner) => (accountId, slug, deviceIds) =>
      isHoldable(accountId) && isHoldable(slug) ? readHoldable(deviceIds, (ids) => inner(accountId, slug, ids)) : EMPTY_MAP(),
  },
  // No such device can exist: nothing to remove, and no identity of it holds.
  removeApnsRegistration: {
    keys: [true, { ifDevice: IDENTITY }],
    absent: (_storage, _deviceId, condition) => Promise.resolve(condition?.ifDevice === undefined),
  },
  setActivityPushToken: {
    keys: [true, true, true, null, { ifDevice: IDENTITY }],
    absent: FALSE,
    values: [null, null, null, true, null],
    exists: async (storage, deviceId, accountId, slug, _token, condition) =>
      (await deviceStill(storage, deviceId, condition?.ifDevice))?.accountId === accountId && (await storage.getActivity(accountId, slug)) !== null,
  },
  getActivityPushToken: { keys: [true, true, true], absent: NULL },
  // A token no store holds is never the one held: nothing to forget.
  forgetActivityPushToken: { keys: [true, true, true, { ifToken: true }], absent: DONE },
  removeApnsToken: { keys: [true, true], absent: DONE },
  // A condition on a channel id no store can hold never holds; such a channel id is never
  // recorded (docs/contract/broadcast-channels.md#broadcast-channel-on-start).
  setActivityChannel: {
    keys: [true, true, null, null, { ifChannel: true }],
    absent: FALSE,
    values: [null, null, null, true, null],
    exists: async (storage, accountId, slug) => (await storage.getActivity(accountId, slug)) !== null,
  },
  listActivityChannels: 'no strings',
  listChannelFollowers: { keys: [true, null], absent: NONE },

  // ── FCM tokens: as the APNs registration; a token no store can hold is never the one held
  setFcmToken: {
    keys: [true, null, { ifDevice: IDENTITY }],
    absent: FALSE,
    values: [null, true, null],
    exists: async (storage, deviceId, _token, condition) => (await deviceStill(storage, deviceId, condition?.ifDevice)) !== null,
  },
  getFcmToken: { keys: [true], absent: NULL },
  getFcmTokens: { wrap: (inner) => (deviceIds) => readHoldable(deviceIds, inner) },
  // No such device or token can exist: nothing to remove, and no condition holds.
  removeFcmToken: {
    keys: [true, { ifDevice: IDENTITY, ifToken: true }],
    absent: (_storage, _deviceId, condition) => Promise.resolve(condition?.ifDevice === undefined && condition?.ifToken === undefined),
  },

  // ── housekeeping
  purgeExpired: 'no strings',
  close: 'no strings',
};

/**
 * A batch read by device ids: an id no store can hold names no device, so it is left out of
 * the read, and so of its answer (absent, as a device without a record). A batch with none
 * such is passed on as it is.
 */
function readHoldable<V>(deviceIds: readonly string[], read: (ids: readonly string[]) => Promise<Map<string, V>>): Promise<Map<string, V>> {
  for (let i = 0; i < deviceIds.length; i++) {
    if (!isHoldable(deviceIds[i]!)) {
      const holdable = deviceIds.filter(isHoldable);
      return holdable.length === 0 ? EMPTY_MAP() : read(holdable);
    }
  }
  return read(deviceIds);
}

/** A guarded write (`setWidgetContent`, `applyActivityUpdate`) of a record that cannot exist: refused in `writeRefusal`'s order. */
async function absentWrite(storage: Storage, accountId: string, guard: WriteGuard | undefined): Promise<{ ok: false; reason: WriteRefusal }> {
  const tokenHash = guard?.tokenHash;
  let credentialHolds = tokenHash === undefined;
  if (tokenHash !== undefined && isHoldable(accountId) && isHoldable(tokenHash)) {
    const account = await storage.getAccount(accountId);
    credentialHolds = account !== null && account.tokenHash === tokenHash && account.subscription === 'active';
  }
  return { ok: false, reason: writeRefusal(credentialHolds, null, guard) ?? 'not_found' };
}

async function widgetExists(storage: Storage, accountId: string, slug: string): Promise<boolean> {
  return (await storage.getWidget(accountId, slug)) !== null;
}

/** The device, if it exists and (when `identity` is given) still has that account and token hash. */
async function deviceStill(storage: Storage, deviceId: string, identity: DeviceIdentity | undefined): Promise<DeviceRecord | null> {
  const device = await storage.getDevice(deviceId);
  if (device === null || identity === undefined) return device;
  return device.accountId === identity.accountId && device.tokenHash === identity.tokenHash ? device : null;
}

/** A press of a known widget by an action or a device no store can hold: no such action, not shared. */
async function pressTargetOfUnholdable(inner: Storage['getPressTarget'], accountId: string, slug: string, actionId: string, deviceId: string) {
  const knownAction = isHoldable(actionId);
  const knownDevice = isHoldable(deviceId);
  // The widget is looked up all the same; no action or share can have such an id.
  const target = await inner(accountId, slug, knownAction ? actionId : '', knownDevice ? deviceId : '');
  return target && { ...target, action: knownAction ? target.action : null, sharedWithDevice: knownDevice && target.sharedWithDevice };
}

function credentialsHold(query: CredentialQuery): boolean {
  for (const entry of query.accounts) if (!isHoldable(entry.accountId) || !isHoldable(entry.tokenHash)) return false;
  for (const entry of query.devices) if (!isHoldable(entry.deviceId) || !isHoldable(entry.tokenHash)) return false;
  return true;
}

/** The store asked only of the entries that can hold; the others do not. */
async function checkHoldableCredentials(inner: Storage['checkCredentials'], query: CredentialQuery) {
  const accounts = query.accounts.map((entry) => isHoldable(entry.accountId) && isHoldable(entry.tokenHash));
  const devices = query.devices.map((entry) => isHoldable(entry.deviceId) && isHoldable(entry.tokenHash));
  const asked = await inner({
    accounts: query.accounts.filter((_, i) => accounts[i]),
    devices: query.devices.filter((_, i) => devices[i]),
  });
  const answer = (kept: boolean[], found: boolean[]) => {
    let next = 0;
    return kept.map((keptEntry) => keptEntry && found[next++]!);
  };
  return { accounts: answer(accounts, asked.accounts), devices: answer(devices, asked.devices) };
}
