import {
  DEAD_LETTER_TTL_MS,
  WIDGET_PUSH_WINDOW_MS,
  claimed,
  isClaimable,
  supersedingJob,
  type DeadLetter,
  type DeliveryClaimTerms,
  type DeliveryJob,
  type DeliveryJobRef,
  type DeliveryJobStore,
  type DeliveryPhase,
  type DeliveryResource,
  type WriteClaimTerms,
} from '@tilecast/core/storage';
import { mergeSorted } from './sorted-ids.js';
import { byCodeUnit, inner, noteAppended, type MemoryState } from './state.js';

/**
 * Delivery jobs and dead letters (docs/contract/durable-delivery.md). Jobs live in this
 * process only: a crash loses them with everything else the store holds
 * (docs/contract/durable-delivery.md#durable-memory-store). Every rule is core's
 * (`supersedingJob`, `isClaimable`, `claimed`); each operation runs synchronously, so it
 * is one step within the process.
 */

/** The key of a resource's job within its account (a kind never contains `/`). */
const jobKey = (kind: string, slug: string): string => `${kind}/${slug}`;

function findJob(state: MemoryState, resource: DeliveryResource): DeliveryJob | undefined {
  return state.jobs.get(resource.accountId)?.get(jobKey(resource.kind, resource.slug));
}

/**
 * Leaves `resource`'s job as `supersedingJob` says, with a fresh generation, and returns a
 * copy. Called by the content writes in the same synchronous step as the content
 * (docs/contract/durable-delivery.md#durable-outbox). With `claim`, the job is claimed in
 * that step too when it is claimable at `now` (a widget inside its window is not).
 */
export function writeJob(state: MemoryState, resource: DeliveryResource, phase: DeliveryPhase, now: number, claim?: WriteClaimTerms): DeliveryJob {
  const windowUntil = resource.kind === 'widget' ? (state.widgets.get(resource.accountId)?.get(resource.slug)?.windowUntil ?? 0) : 0;
  state.lastGeneration += 1;
  const job = supersedingJob(findJob(state, resource) ?? null, { resource, phase, now, generation: state.lastGeneration, windowUntil });
  inner(state.jobs, resource.accountId).set(jobKey(resource.kind, resource.slug), job);
  if (claim !== undefined && isClaimable(job, now)) return claimInPlace(state, job, { instanceId: claim.instanceId, leaseMs: claim.leaseMs, now });
  return { ...job };
}

/**
 * The audience of `job` when the write that left it claimed it for `claim`'s instance
 * (core's `WrittenAudience`, docs/decisions/0119-audience-in-the-write.md), read in that
 * write's step: the account's devices as `listAccountDeviceIds` lists them, and for a
 * widget those it is shared with merged in (`listWidgetShares`), each once, in code-unit
 * order. Undefined when the write claimed nothing.
 */
export function writtenAudience(state: MemoryState, job: DeliveryJob, claim: WriteClaimTerms | undefined): readonly string[] | undefined {
  if (claim === undefined || job.leasedBy !== claim.instanceId) return undefined;
  const own = state.devicesByAccount.get(job.accountId)?.sorted() ?? [];
  const shares = job.kind === 'widget' ? state.widgets.get(job.accountId)?.get(job.slug)?.shares : undefined;
  // The kept list itself, not a copy: it is never changed in place (`SortedIds.sorted`), and
  // copying 100,000 ids here would lengthen the publisher's request, which this write is in.
  if (shares === undefined || shares.size === 0) return own;
  return mergeSorted(own, [...shares].sort(byCodeUnit), () => true);
}

/** Drops the job of a deleted activity or widget. */
export function removeJob(state: MemoryState, accountId: string, kind: DeliveryResource['kind'], slug: string): void {
  const jobs = state.jobs.get(accountId);
  if (!jobs?.delete(jobKey(kind, slug))) return;
  if (jobs.size === 0) state.jobs.delete(accountId);
}

/** The job `ref` names, if `ref` still holds it: same generation, leased by the same instance. */
function heldJob(state: MemoryState, ref: DeliveryJobRef): DeliveryJob | undefined {
  const job = findJob(state, ref);
  return job !== undefined && job.generation === ref.generation && job.leasedBy === ref.instanceId ? job : undefined;
}

/** Claims `job` in place; a widget's throttle window then runs from `now` (docs/contract/device-api.md#widget-push-throttle). */
function claimInPlace(state: MemoryState, job: DeliveryJob, terms: DeliveryClaimTerms): DeliveryJob {
  const next = claimed(job, terms);
  Object.assign(job, next);
  if (job.kind === 'widget') {
    const widget = state.widgets.get(job.accountId)?.get(job.slug);
    if (widget !== undefined) widget.windowUntil = terms.now + WIDGET_PUSH_WINDOW_MS;
  }
  return { ...job };
}

function* allJobs(state: MemoryState, accountId?: string): Iterable<DeliveryJob> {
  if (accountId !== undefined) {
    yield* state.jobs.get(accountId)?.values() ?? [];
    return;
  }
  for (const jobs of state.jobs.values()) yield* jobs.values();
}

/** Oldest `createdAt` first; generations break ties (both stores order alike). */
const byCreation = (a: DeliveryJob, b: DeliveryJob): number => a.createdAt - b.createdAt || a.generation - b.generation;
const byDue = (a: DeliveryJob, b: DeliveryJob): number => a.dueAt - b.dueAt || a.generation - b.generation;

export function deliveryJobMethods(state: MemoryState): DeliveryJobStore {
  return {
    // ATOMIC: found, checked and claimed with no await in between.
    async claimDeliveryJob(resource, generation, terms) {
      const job = findJob(state, resource);
      if (job === undefined || job.generation !== generation || !isClaimable(job, terms.now)) return null;
      return claimInPlace(state, job, terms);
    },

    // ATOMIC: every job is picked and claimed in one synchronous pass.
    async claimDueDeliveryJobs({ limit, ...terms }) {
      if (!(limit > 0)) return [];
      const due = [...allJobs(state)].filter((job) => isClaimable(job, terms.now)).sort(byDue);
      return due.slice(0, limit).map((job) => claimInPlace(state, job, terms));
    },

    async recordDeliveryProgress(ref, { cursor, now, leaseMs }) {
      const job = heldJob(state, ref);
      if (job === undefined || job.leaseUntil <= now) return false;
      job.cursor = cursor;
      job.leaseUntil = now + leaseMs;
      return true;
    },

    async completeDeliveryJob(ref) {
      if (heldJob(state, ref) === undefined) return false;
      removeJob(state, ref.accountId, ref.kind, ref.slug);
      return true;
    },

    // A handed-back job is not a lapsed one: the next claimant does not count a resume.
    async releaseDeliveryJob(ref) {
      const job = heldJob(state, ref);
      if (job === undefined) return;
      job.leasedBy = null;
      job.leaseUntil = 0;
    },

    async listDeliveryJobs({ accountId, limit }) {
      return [...allJobs(state, accountId)]
        .sort(byCreation)
        .slice(0, Math.max(0, limit))
        .map((job) => ({ ...job }));
    },

    async deliveryJobStats() {
      let pending = 0;
      let oldestCreatedAt: number | null = null;
      for (const job of allJobs(state)) {
        pending += 1;
        if (oldestCreatedAt === null || job.createdAt < oldestCreatedAt) oldestCreatedAt = job.createdAt;
      }
      return { pending, oldestCreatedAt };
    },

    async addDeadLetters(letters) {
      for (const letter of letters) {
        state.lastDeadLetter += 1;
        const { accountId, kind, slug, deviceId, transport, reason, at } = letter;
        state.deadLetters.set(state.lastDeadLetter, { accountId, kind, slug, deviceId, transport, reason, at });
        noteAppended(state.deadLetterOrder, at + DEAD_LETTER_TTL_MS);
      }
    },

    // Newest `at` first; of two at the same time, the one added later first (as in PostgreSQL).
    async listDeadLetters({ accountId, limit }) {
      const found: Array<[number, DeadLetter]> = [];
      for (const entry of state.deadLetters) if (accountId === undefined || entry[1].accountId === accountId) found.push(entry);
      found.sort(([n1, a], [n2, b]) => b.at - a.at || n2 - n1);
      return found.slice(0, Math.max(0, limit)).map(([, letter]) => ({ ...letter }));
    },
  };
}
