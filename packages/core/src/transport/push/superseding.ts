import type { ActivityPush, WidgetPush } from '../device-transport.js';

/** A push as handed over: the key newer pushes replace it under, and its stamp (set by `handOver`). */
export interface SupersedingTicket {
  readonly key: string;
  seq: number;
}

/** A push once built (looked up): its ticket's key and stamp. */
export interface SupersedingJob {
  readonly key: string;
  readonly seq: number;
}

/** Device-activity pairs whose last time is remembered; the oldest are forgotten beyond. */
export const ACTIVITY_TIMES_KEPT = 100_000;

/**
 * What newer pushes replace: the same device, and the same activity's start, the same
 * activity's updates and end, or the same widget. A start is not replaced by an update:
 * the device gets its update token only from the activity the start began.
 */
export function pushKey(deviceId: string, push: ActivityPush | WidgetPush): string {
  const lane = 'phase' in push ? (push.phase === 'start' ? 'start' : 'activity') : 'widgets';
  return `${deviceId}\n${lane}\n${push.owner}/${push.slug}`;
}

/** The newest push of a key still in the transport. */
interface Newest<J> {
  seq: number;
  /** Its activity time (epoch ms), 0 for widgets. */
  at: number;
  /** Its job once built (looked up), until then undefined. */
  job: J | undefined;
}

/**
 * Newer pushes win (docs/contract/apns.md#apns-latest-wins):
 * - per key (`pushKey`): the push handed over last is the one to send; every older one
 *   still in the transport gives way (`isSuperseded`), wherever it waits;
 * - a push older (by its activity time) than the newest of its key still in the transport
 *   is not handed over at all (`isOlder`);
 * - per device and activity: the time of the newest push built never goes back, so a push
 *   older than one already built is stale (`isStale`): APNs would drop it, and an app
 *   applies only the newest state.
 * What is kept is one entry per key with a push in the transport, and a bounded number of
 * activity times.
 */
export class Superseding<J extends SupersedingJob> {
  private nextSeq = 0;
  private readonly newest = new Map<string, Newest<J>>();
  /** Per device and activity: the time of the newest push built. */
  private readonly activityTimes: BoundedMap<string, number>;

  constructor(activityTimesKept = ACTIVITY_TIMES_KEPT) {
    this.activityTimes = new BoundedMap(activityTimesKept);
  }

  /** True when the newest push of `key` still in the transport is for a later time than `at`. */
  isOlder(key: string, at: number): boolean {
    const newest = this.newest.get(key);
    return newest !== undefined && at < newest.at;
  }

  /**
   * Stamps `ticket`, for activity time `at` (epoch ms, 0 for widgets), as the newest of its
   * key (its `seq`); every older push of the key now gives way. Answers the one it
   * displaces if that one was built, which is then at work (the transport's delivery says
   * where: `RetryWaits.giveWay`, or with the connections).
   */
  handOver(ticket: SupersedingTicket, at: number): J | undefined {
    const seq = ++this.nextSeq;
    ticket.seq = seq;
    const newest = this.newest.get(ticket.key);
    if (newest === undefined) {
      this.newest.set(ticket.key, { seq, at, job: undefined });
      return undefined;
    }
    const displaced = newest.job;
    newest.seq = seq;
    newest.at = at;
    newest.job = undefined;
    return displaced;
  }

  /** The newest push of its key was built: a newer one will displace this job. */
  built(job: J): void {
    const newest = this.newest.get(job.key);
    if (newest?.seq === job.seq) newest.job = job;
  }

  /** True once a newer push of the same key was handed over. */
  isSuperseded(key: string, seq: number): boolean {
    return this.newest.get(key)?.seq !== seq;
  }

  /** The push is done with: its key is forgotten unless a newer push holds it. */
  settle(key: string, seq: number): void {
    if (this.newest.get(key)?.seq === seq) this.newest.delete(key);
  }

  /** Keys with a push in the transport (each holds one entry here). */
  get keys(): number {
    return this.newest.size;
  }

  /**
   * True when an activity push at `at` (epoch ms) is older than one already built for the
   * same activity on the same device; otherwise `at` is remembered as the newest.
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
