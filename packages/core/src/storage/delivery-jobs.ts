/**
 * Delivery jobs: the outbox of docs/contract/durable-delivery.md#durable-outbox. One job per
 * activity or widget, written by the store in the same atomic step as the content it
 * delivers, so an accepted update always has its job and a refused one never does.
 *
 * A job is one row per resource however many devices it reaches: its devices are sent in
 * ascending id order (code units) and `cursor` is the last id done, recorded in batches
 * (docs/contract/durable-delivery.md#durable-job-resume). The rules both stores follow are
 * the pure functions below, so they are written once.
 */

/** Widgets reach devices at most once per widget in this window (docs/contract/device-api.md#widget-push-throttle). */
export const WIDGET_PUSH_WINDOW_MS = 2_000;

/** What a job sends: an activity's phase, or `changed` for a widget. */
export type DeliveryPhase = 'start' | 'update' | 'end' | 'changed';

export type DeliveryKind = 'activity' | 'widget';

/** The resource a job delivers; there is at most one job per resource. */
export interface DeliveryResource {
  accountId: string;
  kind: DeliveryKind;
  slug: string;
}

/** One resource's job as the store keeps it. */
export interface DeliveryJob extends DeliveryResource {
  /**
   * Names this version of the job: progress, completion and release name it, and a newer
   * update gives the job a new one. The store draws it from one counter that never goes
   * back (PostgreSQL: a sequence), so no generation is ever reused, even after the job
   * of a resource was done and a new one written.
   */
  generation: number;
  phase: DeliveryPhase;
  /**
   * Devices with an id above this one still need the activity's `start` (a start that a
   * newer update superseded before it reached them); null: none. Devices at or below it
   * get `phase`.
   */
  startAbove: string | null;
  /** The last device id done (devices go in ascending id order); `''`: none yet. */
  cursor: string;
  /** Not claimed before this time (epoch ms): a widget's trailing push waits for its 2-second throttle window. */
  dueAt: number;
  /** When this generation was written (epoch ms): when the update that left it was accepted; how old the oldest pending job is. */
  createdAt: number;
  /** The instance that claimed it last (its lease holds until `leaseUntil`), or null when none has yet. */
  leasedBy: string | null;
  /** The lease holds until then (epoch ms); 0 when never leased. A lease in the past has lapsed: any instance may resume the job. */
  leaseUntil: number;
  /** How many times the job was claimed again after a lease lapsed (docs/contract/durable-delivery.md#durable-job-resume). */
  resumed: number;
}

/** Names one generation of one job: progress, completion and release for a superseded generation do nothing. */
export interface DeliveryJobRef extends DeliveryResource {
  generation: number;
  instanceId: string;
}

/** What a store keeps per widget besides its job: when its throttle window ends. */
export interface WidgetWindow {
  /** Epoch ms; a widget update before this is due then (the trailing push). */
  windowUntil: number;
}

/**
 * The job a newly accepted update leaves (docs/contract/durable-delivery.md#durable-supersede):
 * a fresh one when the resource has none unfinished (`previous` null), else the unfinished one replaced by
 * the latest state, from the first device again. One rule keeps a superseded `start` from
 * being lost: devices the start had not reached yet get `start` (with the latest content)
 * instead of the newer `update`.
 */
export function supersedingJob(
  previous: DeliveryJob | null,
  update: { resource: DeliveryResource; phase: DeliveryPhase; now: number; generation: number; windowUntil?: number },
): DeliveryJob {
  const { resource, phase, now, generation } = update;
  return {
    accountId: resource.accountId,
    kind: resource.kind,
    slug: resource.slug,
    generation,
    phase,
    startAbove: phase === 'update' && previous !== null ? startStillOwed(previous) : null,
    cursor: '',
    // A widget waits for its throttle window (docs/contract/device-api.md#widget-push-throttle).
    dueAt: resource.kind === 'widget' ? Math.max(now, update.windowUntil ?? 0) : now,
    createdAt: now,
    // The lease goes with the superseded generation: its holder stops at its next batch.
    leasedBy: null,
    leaseUntil: 0,
    resumed: 0,
  };
}

/** Above which device id an unfinished job still owes `start`, or null. */
function startStillOwed(job: DeliveryJob): string | null {
  if (job.phase === 'start') return job.cursor;
  if (job.startAbove === null) return null;
  // biome-ignore lint/complexity/useMathMinMax: device ids are strings, which Math.max would turn into NaN
  return job.cursor > job.startAbove ? job.cursor : job.startAbove;
}

/** What a device gets from `job`: `start` where a superseded start still owes it, else the job's phase. */
export function phaseFor(job: Pick<DeliveryJob, 'phase' | 'startAbove'>, deviceId: string): DeliveryPhase {
  return job.startAbove !== null && deviceId > job.startAbove ? 'start' : job.phase;
}

/** True when `job` can be claimed at `now`: due, and no lease holds. */
export function isClaimable(job: DeliveryJob, now: number): boolean {
  return job.dueAt <= now && job.leaseUntil <= now;
}

/** A claim of `job` by `instanceId` until `now + leaseMs`; a lapsed lease taken over counts as a resume. */
export function claimed(job: DeliveryJob, claim: DeliveryClaimTerms): DeliveryJob {
  const takesOver = job.leasedBy !== null && job.leasedBy !== claim.instanceId;
  return { ...job, leasedBy: claim.instanceId, leaseUntil: claim.now + claim.leaseMs, resumed: job.resumed + (takesOver ? 1 : 0) };
}

/** Who claims jobs, when, and for how long. */
export interface DeliveryClaimTerms {
  instanceId: string;
  now: number;
  leaseMs: number;
}

/**
 * A claim made by the content write itself (`applyActivityUpdate`, `setWidgetContent`): the
 * terms of `claimDeliveryJob` but `now`, which is the write's own. The instance that accepts
 * an update runs its job at once, so it claims it in the write rather than one round trip
 * later (docs/decisions/0118-claim-in-the-write.md).
 */
export type WriteClaimTerms = Omit<DeliveryClaimTerms, 'now'>;

/** Dead letters are kept this long, then purged (docs/contract/durable-delivery.md#durable-dead-letters). */
export const DEAD_LETTER_TTL_MS = 7 * 24 * 60 * 60 * 1000;

/** A push that failed for good (docs/contract/durable-delivery.md#durable-dead-letters). */
export interface DeadLetter extends DeliveryResource {
  deviceId: string;
  /** The transport's name (`apns`, `stream`, ...). */
  transport: string;
  /** Why, in a few words (`refused: BadTopic`, `dropped: retries used up`). */
  reason: string;
  /** Epoch ms. */
  at: number;
}

/** Which dead letters `listDeadLetters` returns: newest first. */
export interface DeadLetterQuery {
  /** Only this account's; omitted: every account's. */
  accountId?: string;
  limit: number;
}

/** Which jobs `listDeliveryJobs` returns: oldest first. */
export interface DeliveryJobQuery {
  accountId?: string;
  limit: number;
}

/** The pending jobs in numbers, for metrics and readiness. */
export interface DeliveryJobStats {
  pending: number;
  /** `createdAt` of the oldest pending job, or null when none is pending. */
  oldestCreatedAt: number | null;
}
