import { randomBytes, randomUUID } from 'node:crypto';
import type { AccountRecord, ActivityRecord, DeviceRecord, Storage, StoredEvent, PressAdmission, TokenBucketRule, WidgetRecord } from '@tilecast/core/storage';
import { afterAll, beforeAll } from 'vitest';
import type { StorageConcern } from './registry.js';

export interface StorageConformanceOptions {
  /** Shown in the suite's title, e.g. `memory` or `postgres`. */
  name: string;
  /** Builds a store. Called once per concern; the concern's tests share it (random keys). */
  create: () => Promise<Storage> | Storage;
  /**
   * A second handle on the SAME data, as a second Tilecast instance would have (PostgreSQL:
   * another store on another pool). Concurrency tests spread their calls over both.
   * Default: the same instance (the only choice for a single-process store).
   */
  createPeer?: (storage: Storage) => Promise<Storage> | Storage;
  /** Releases a store (and, separately, its peer when it is another object). Default: `close()`. */
  cleanup?: (storage: Storage) => Promise<void>;
  /**
   * Concerns not run, each with the written reason shown in the skipped test's title, e.g.
   * `{ activityQuota: 'one connection only' }`. An unknown id or an empty reason throws.
   */
  skip?: Partial<Record<StorageConcern, string>>;
}

export interface Handles {
  storage: Storage;
  /** Second handle on the same data (may be `storage` itself). */
  peer: Storage;
}

export type GetHandles = () => Handles;

/** Builds the store before a concern's tests and releases it after them. */
export function useHandles(options: StorageConformanceOptions): GetHandles {
  let handles: Handles | undefined;
  beforeAll(async () => {
    const storage = await options.create();
    const peer = options.createPeer ? await options.createPeer(storage) : storage;
    handles = { storage, peer };
  });
  afterAll(async () => {
    if (!handles) return;
    const cleanup = options.cleanup ?? ((storage: Storage) => storage.close());
    const { storage, peer } = handles;
    handles = undefined;
    if (peer !== storage) await cleanup(peer);
    await cleanup(storage);
  });
  return () => {
    if (!handles) throw new Error('the store is not built yet (call the getter inside a test)');
    return handles;
  };
}

/** Alternates calls between the two handles, as two instances would. */
export const either = ({ storage, peer }: Handles, i: number): Storage => (i % 2 === 0 ? storage : peer);

/** A unique id, so tests never collide on a shared database and need no cleanup. */
export const uid = (prefix: string): string => `${prefix}-${randomUUID()}`;

/** A random SHA-256-sized hex string. */
export const randomHash = (): string => randomBytes(32).toString('hex');

/**
 * Base of every test time (2027-01-15): time is always passed explicitly. Everything other
 * than the purge tests expires after this, so the purge tests (which use times far below
 * it) only ever purge their own rows, even on a shared database.
 */
export const T0 = 1_800_000_000_000;

export const iso = (now: number): string => new Date(now).toISOString();

export const count = <T>(items: T[], predicate: (item: T) => boolean): number => items.filter(predicate).length;

export async function newAccount(storage: Storage, overrides: Partial<AccountRecord> = {}): Promise<AccountRecord> {
  const account: AccountRecord = {
    id: uid('acct'),
    tokenHash: randomHash(),
    subscription: 'active',
    activityQuota: 5,
    ...overrides,
  };
  await storage.upsertAccount(account);
  return account;
}

export async function newActivity(storage: Storage, accountId: string, template = 'progress'): Promise<ActivityRecord> {
  const slug = uid('act');
  await storage.putActivity({ accountId, slug, template, dismissalDelayS: 30 });
  return {
    accountId,
    slug,
    template,
    dismissalDelayS: 30,
    state: 'IDLE',
    live: false,
    content: null,
    updatedAt: null,
    delivery: 'tokens',
    frequentUpdates: false,
    channels: { production: null, sandbox: null },
  };
}

export async function newWidget(storage: Storage, accountId: string, template = 'switchboard'): Promise<WidgetRecord> {
  const slug = uid('wid');
  await storage.putWidget({ accountId, slug, template, staleAfter: 300, privacy: 'visible' });
  return { accountId, slug, template, staleAfter: 300, privacy: 'visible', content: null, updatedAt: null };
}

export async function newDevice(storage: Storage, accountId: string, id = uid('dev')): Promise<DeviceRecord> {
  const device: DeviceRecord = { id, accountId, tokenHash: randomHash() };
  await storage.upsertDevice(device);
  return device;
}

export function newEvent(expiresAt: number, extra: Partial<Omit<StoredEvent, 'position'>> = {}): Omit<StoredEvent, 'position'> {
  const id = randomUUID();
  return {
    id,
    subject: 'widget/panel',
    type: 'widget.pressed',
    expiresAt,
    envelope: { id, type: 'widget.pressed', data: { action: 'lights', value: true, nested: { list: [1, 'two', null] } } },
    ...extra,
  };
}

/** After every test time: notes and events written only to exercise keys or buckets outlive them all. */
const FAR = T0 + 1_000_000_000;

/**
 * A press admission at T0 with a fresh key, account, note and event, no buckets, and
 * nothing expiring before `FAR` (no purge test ever reaches its note or event), unless given.
 */
export function admission(overrides: Partial<PressAdmission> = {}): PressAdmission {
  return {
    key: uid('press'),
    keyExpiresAt: FAR,
    rules: [],
    now: T0,
    note: { widgetKey: uid('widget'), deviceId: uid('dev'), until: FAR },
    accountId: uid('acct'),
    event: newEvent(FAR),
    ...overrides,
  };
}

/** `admitPress` as a bare de-duplication: `created` when accepted, with the event id that answered. */
export async function admitKey(storage: Storage, key: string, eventId: string, now: number, expiresAt: number): Promise<{ created: boolean; eventId: string }> {
  const result = await storage.admitPress(admission({ key, keyExpiresAt: expiresAt, now, event: newEvent(FAR, { id: eventId }) }));
  if (result.outcome === 'limited') throw new Error('an admission without buckets was limited');
  return result.outcome === 'accepted' ? { created: true, eventId: result.event.id } : { created: false, eventId: result.eventId };
}

/** A token-bucket rule on a fresh key. */
export const bucketRule = (capacity: number, refillMs = 1_000): TokenBucketRule => ({ key: uid('bucket'), capacity, refillMs });

/** `admitPress` as a bare token take: a fresh key each time; true when accepted. */
export async function takeTokens(storage: Storage, rules: TokenBucketRule[], now: number): Promise<boolean> {
  return (await storage.admitPress(admission({ rules, now }))).outcome === 'accepted';
}

/** Takes from `rules` at `now` until refused; how many takes were accepted. */
export async function takeUntilRefused(storage: Storage, rules: TokenBucketRule[], now: number): Promise<number> {
  let taken = 0;
  while (await takeTokens(storage, rules, now)) {
    taken += 1;
    if (taken > 1_000) throw new Error('the bucket never ran dry');
  }
  return taken;
}

/** Content shaped like a real update, with nesting (copies must be deep). */
export const content = (value: number): Record<string, unknown> => ({
  template: 'progress',
  progress: { value, label: `at ${value}` },
  tags: ['a', { b: value }],
});

/** The record of a write that must have succeeded (a refusal fails the test with its reason). */
export function written<T extends { ok: boolean }>(result: T): Extract<T, { ok: true }> {
  if (!result.ok) throw new Error(`expected the write to succeed, got ${(result as { reason?: string }).reason}`);
  return result as Extract<T, { ok: true }>;
}
