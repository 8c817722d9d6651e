import type { ActivityPush, WidgetPush } from '../device-transport.js';
import { Admission } from './admission.js';
import type { Superseding, SupersedingJob } from './superseding.js';

/**
 * A push as handed over, before it is looked up and built: what waits for admission. A
 * transport's ticket may carry more (what it made of the push once, e.g. its payload).
 */
export interface PushTicket {
  readonly deviceId: string;
  readonly push: ActivityPush | WidgetPush;
  /** `pushKey(deviceId, push)`. */
  readonly key: string;
  /** Set by `Superseding.handOver`. */
  seq: number;
  /** An activity push's time (epoch ms, what its `timestamp` says); null for a widget push. */
  readonly at: number | null;
}

/** What a transport does at each step of a push, and what each outcome resolves with (`R`). */
export interface LatestWinsSteps<T extends PushTicket, J extends SupersedingJob, R> {
  /** Pushes at work at once (a slot each) and pushes started per turn of the event loop. */
  limit: number;
  perTurn: number;
  superseding: Superseding<J>;
  /** Looks the ticket's token up and builds its job (with `leave`, its slot's): null when it has nowhere to go. */
  build(ticket: T, leave: () => void): Promise<J | null>;
  /** Sends a built job (the newest of its key) and settles with what came of it. */
  send(job: J): Promise<R>;
  /**
   * A newer push of `older`'s key was handed over while `older` is at work: its wait to
   * retry, if any, ends (it gives way as it wakes). True when `older` is with the
   * connections (waiting for a stream or for its answer): the newer push then goes ahead
   * of the admission queue, to take `older`'s place in the stream queue.
   */
  giveWay(older: J): boolean;
  /** True once the transport is closed, and what a push comes to then. */
  closed(): boolean;
  dropClosed(): Promise<R>;
  /** What a push comes to when a newer one replaced it, and when it has nowhere to go. */
  superseded(): R;
  skipped(): R;
}

/**
 * The way of a push through a transport, with latest wins (docs/contract/apns.md#apns-latest-wins,
 * docs/decisions/0111-apns-latest-wins.md): each push is stamped as the newest of its device
 * and activity or widget, paced by Admission, looked up and built, and sent; a newer push
 * replaces an older one still waiting anywhere on that way (admission queue, retry wait,
 * stream queue), so that what waits grows with the (device, activity or widget) pairs, not
 * with the updates. Shared by the push transports, so that each has the same rules.
 */
export class LatestWins<T extends PushTicket, J extends SupersedingJob, R> {
  private readonly admission: Admission<T, R>;

  constructor(private readonly steps: LatestWinsSteps<T, J, R>) {
    // A push's key is settled as its work settles (whatever the way), on Admission's callbacks.
    const { superseding } = steps;
    this.admission = new Admission<T, R>(
      steps.limit,
      steps.perTurn,
      (ticket, leave) => this.work(ticket, leave),
      steps.superseded,
      (ticket) => superseding.settle(ticket.key, ticket.seq),
    );
  }

  /**
   * Hands a push over: the newest of its key from now on. One older than the newest still
   * here is superseded at once; otherwise the push it displaces gives way wherever it
   * waits, and when that one is with the connections this one goes ahead to take its place
   * there.
   */
  handOver(ticket: T): Promise<R> {
    const { steps } = this;
    if (steps.closed()) return steps.dropClosed();
    if (ticket.at !== null && steps.superseding.isOlder(ticket.key, ticket.at)) return Promise.resolve(steps.superseded());
    const displaced = steps.superseding.handOver(ticket, ticket.at ?? 0);
    return this.admission.run(ticket, displaced !== undefined && steps.giveWay(displaced));
  }

  /** Pushes waiting for admission (one per key at most), pushes at work, and the keys with a push here. */
  load(): { queued: number; working: number; keys: number } {
    const { queued, working } = this.admission.load();
    return { queued, working, keys: this.steps.superseding.keys };
  }

  /**
   * What an admitted push runs: looked up, built and sent, unless a newer one of its key came
   * meanwhile. Plain promise chains rather than an async function (no async frame, no
   * promise per await: one closure per push); its key is settled by Admission as it settles
   * (see the constructor), whichever way it went.
   */
  private work(ticket: T, leave: () => void): Promise<R> {
    const { steps } = this;
    if (steps.closed()) return steps.dropClosed();
    if (steps.superseding.isSuperseded(ticket.key, ticket.seq)) return Promise.resolve(steps.superseded());
    return steps.build(ticket, leave).then((job) => this.sendBuilt(ticket, job));
  }

  /** The built push sent, unless it has nowhere to go, a newer one of its key came, or it is stale. */
  private sendBuilt(ticket: T, job: J | null): R | Promise<R> {
    const { steps } = this;
    const { superseding } = steps;
    if (job === null) return steps.skipped();
    if (superseding.isSuperseded(job.key, job.seq)) return steps.superseded();
    // An activity's time never goes back on one device: a push older than one already
    // built is stale (the service or the app would drop it), so it is not sent.
    const { owner, slug } = ticket.push;
    if (ticket.at !== null && superseding.isStale(ticket.deviceId, owner, slug, ticket.at)) return steps.superseded();
    superseding.built(job);
    return steps.send(job);
  }
}
