import * as v from 'valibot';
import type { DeliveryJob } from '../storage/delivery-jobs.js';
import type { Storage } from '../storage/storage.js';
import { Identifier, UnknownRecordError } from './arguments.js';

/**
 * How many jobs or dead letters one listing returns unless told: a screenful for a person
 * at a terminal (docs/contract/durable-delivery.md#durable-operator-listing).
 */
export const DEFAULT_DELIVERY_PAGE = 100;

/**
 * The most jobs or dead letters one listing returns: one bounded store read. A larger
 * backlog shows in `tilecast_delivery_jobs_pending` and is narrowed by account.
 */
export const MAX_DELIVERY_PAGE = 1_000;

export const DeliveryListSchema: v.GenericSchema<DeliveryListInput, { accountId?: string; limit: number }> = v.strictObject({
  accountId: v.optional(Identifier),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_DELIVERY_PAGE)), DEFAULT_DELIVERY_PAGE),
});

/** Which jobs or dead letters a listing returns (checked by `DeliveryListSchema`). */
export interface DeliveryListInput {
  /** Only this account's, which must exist; omitted: every account's. */
  accountId?: string;
  /** At most this many, 1 to `MAX_DELIVERY_PAGE`; default `DEFAULT_DELIVERY_PAGE`. */
  limit?: number;
}

/**
 * A delivery job not done yet, as an operator sees it: which resource, what it sends, how
 * far it got, and who works on it. The store's job without what stays inside the store
 * (the generation that names the job's version, where a superseded start ends), so the
 * store may keep more without it showing here; each field means what it means there.
 */
export type DeliverySummary = Pick<
  DeliveryJob,
  'accountId' | 'kind' | 'slug' | 'phase' | 'cursor' | 'dueAt' | 'createdAt' | 'leasedBy' | 'leaseUntil' | 'resumed'
>;

/** A push that failed for good (docs/contract/durable-delivery.md#durable-dead-letters). */
export interface DeadLetterSummary {
  accountId: string;
  kind: 'activity' | 'widget';
  slug: string;
  deviceId: string;
  /** The transport's name (`apns`...). */
  transport: string;
  /** Why, in a few words: `refused: <what the push service answered>`, `dropped: <why it was given up>`, `failed: <error>`. */
  reason: string;
  /** When it failed (epoch ms). */
  at: number;
}

type Query = v.InferOutput<typeof DeliveryListSchema>;

export async function pendingDeliveries(storage: Storage, query: Query): Promise<DeliverySummary[]> {
  await requireAccountOf(storage, query);
  const jobs = await storage.listDeliveryJobs(query.accountId === undefined ? { limit: query.limit } : query);
  return jobs.map(deliverySummary);
}

export async function deadLetters(storage: Storage, query: Query): Promise<DeadLetterSummary[]> {
  await requireAccountOf(storage, query);
  const letters = await storage.listDeadLetters(query.accountId === undefined ? { limit: query.limit } : query);
  return letters.map(({ accountId, kind, slug, deviceId, transport, reason, at }) => ({ accountId, kind, slug, deviceId, transport, reason, at }));
}

const deliverySummary = ({ accountId, kind, slug, phase, cursor, dueAt, createdAt, leasedBy, leaseUntil, resumed }: DeliveryJob): DeliverySummary => ({
  accountId,
  kind,
  slug,
  phase,
  cursor,
  dueAt,
  createdAt,
  leasedBy,
  leaseUntil,
  resumed,
});

/**
 * A listing narrowed to an account that does not exist is refused rather than answered
 * empty: a mistyped `--account` must not read as "nothing pending". (The dead letters of a
 * deleted account are still listed without one, until they expire.)
 */
async function requireAccountOf(storage: Storage, query: Query): Promise<void> {
  if (query.accountId !== undefined && (await storage.getAccount(query.accountId)) === null) throw new UnknownRecordError('account', query.accountId);
}
