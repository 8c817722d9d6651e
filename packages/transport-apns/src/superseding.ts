import type { Job } from './job.js';

/** Device-activity pairs whose last time is remembered; the oldest are forgotten beyond. */
export const ACTIVITY_TIMES_KEPT = 100_000;

/**
 * Newer pushes win. Two rules:
 * - per key (a device token and an activity or widget): the newest job handed over is the
 *   one to send; an older one still waiting to retry gives way (`isSuperseded`);
 * - per device and activity: the time of the newest push handed over never goes back, so a
 *   push older than one already handed over is stale (`isStale`), as APNs would drop it.
 */
export class Superseding {
  private nextSeq = 0;
  /** The seq of the newest job per key, while that job is at work. */
  private readonly latest = new Map<string, number>();
  /** Per device and activity: the time of the newest push handed over. */
  private readonly activityTimes: BoundedMap<string, number>;

  constructor(activityTimesKept = ACTIVITY_TIMES_KEPT) {
    this.activityTimes = new BoundedMap(activityTimesKept);
  }

  /** Makes `job` the newest of its key: every older one at work now gives way to it. */
  stamp(job: Job): void {
    const seq = ++this.nextSeq;
    this.latest.set(job.key, seq);
    job.seq = seq;
  }

  /** True once a newer job of the same key was stamped. */
  isSuperseded(job: Job): boolean {
    return this.latest.get(job.key) !== job.seq;
  }

  /** The job is done with: its key is forgotten unless a newer job holds it. */
  settle(job: Job): void {
    if (this.latest.get(job.key) === job.seq) this.latest.delete(job.key);
  }

  /**
   * True when an activity push at `at` (epoch ms) is older than one already handed over
   * for the same activity on the same device; otherwise `at` is remembered as the newest.
   */
  isStale(deviceId: string, owner: string, slug: string, at: number): boolean {
    const key = `${deviceId}\n${owner}/${slug}`;
    const previous = this.activityTimes.get(key);
    if (previous !== undefined && at < previous) return true;
    this.activityTimes.set(key, at);
    return false;
  }
}

/** A map that forgets its oldest entries beyond `capacity` (insertion order, refreshed on set). */
class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}
  get(key: K): V | undefined {
    return this.map.get(key);
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) this.map.delete(this.map.keys().next().value as K);
  }
}
