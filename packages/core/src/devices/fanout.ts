import type { Clock } from '../clock.js';
import { collectDeadLetters, type DeadLetterSink } from '../delivery/dead-letter-sink.js';
import { startJobPoller } from '../delivery/job-poller.js';
import { JobRunner, type StreamReach } from '../delivery/job-runner.js';
import { sendPaced } from '../delivery/paced-send.js';
import type { Logger } from '../logger.js';
import type { SafeObserver } from '../observer.js';
import type { DeliveryJob, WriteClaimTerms } from '../storage/delivery-jobs.js';
import type { ActivityRecord, ActivityTransition, WidgetRecord } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { widgetKey } from '../storage/widget-key.js';
import type { DeviceTransport } from '../transport/device-transport.js';
import { widgetPush } from '../transport/pushes.js';
import { combineTransports } from './sse-device-transport.js';

export { FANOUT_SLICE, FANOUT_WINDOW } from '../delivery/paced-send.js';
export { WIDGET_PUSH_WINDOW_MS } from '../storage/delivery-jobs.js';

/** How delivery jobs are worked on (`TilecastOptions.delivery`; docs/contract/durable-delivery.md). */
export interface DeliveryOptions {
  /** This instance's name in leases; default a random id per instance. */
  instanceId?: string;
  /** How long a claim holds without renewal; default 30 s. */
  leaseMs?: number;
  /** How often jobs nobody works on are looked for; default 2 s, 0 never (tests). */
  pollMs?: number;
  /** Jobs worked on at once by this instance, at most; default 8. */
  maxJobs?: number;
  /**
   * A pending job that has waited longer than this is named in `/readyz`'s detail, which
   * stays `200` (docs/contract/deployment.md#readyz-detail); default 60 s.
   */
  lateAfterMs?: number;
}

export const DEFAULT_DELIVERY = { leaseMs: 30_000, pollMs: 2_000, maxJobs: 8 } as const;

export interface DeviceFanout {
  /**
   * The claim a content write of this instance passes to the store (`WriteClaimTerms`), so
   * that the job it leaves is claimed in the write itself; undefined while this instance
   * would not run that job now (closed, or nobody to reach from here: the pollers take it).
   * The job the write returns, leased to this instance, then goes to `activityChanged` or
   * `widgetChanged`, which run it without claiming it again.
   */
  writeClaim(): WriteClaimTerms | undefined;
  /**
   * Delivers an activity's new state: `job` is what its update left (null for `none`),
   * `audience` the job's devices when the write that claimed it read them (`WrittenAudience`).
   */
  activityChanged(activity: ActivityRecord, transition: ActivityTransition, job: DeliveryJob | null, audience?: readonly string[]): void;
  /** Delivers a widget's latest content, throttled per widget by its job's due time; `audience` as for `activityChanged`. */
  widgetChanged(widget: WidgetRecord, job: DeliveryJob, audience?: readonly string[]): void;
  /** Resolves once every push, job and trailing push started so far has settled (tests, shutdown). */
  idle(): Promise<void>;
  /**
   * Stops taking jobs and gives the unfinished ones back (leases released, progress kept),
   * without waiting for the pushes in flight: another instance resumes them. Returns how many.
   */
  handBack(): Promise<number>;
  /** As `handBack`, for good. */
  close(): Promise<void>;
}

interface FanoutDeps {
  storage: Storage;
  /** The reference deployment's device stream: never a dead letter (a device not connected gets a snapshot when it connects). */
  deviceStream: DeviceTransport & Partial<StreamReach>;
  /** The host's transports (APNs, FCM...), each with its own dead letters for its failures for good. */
  hosts?: readonly DeviceTransport[];
  clock: Clock;
  logger: Logger;
  observer?: SafeObserver;
  delivery?: DeliveryOptions;
  /**
   * False while no push can reach anyone from here (no transport of the host's, no device
   * connected to this instance's stream): then this instance leaves the jobs it writes to
   * the pollers, and finishes the ones it claims unsent. A device that connects later
   * starts from a snapshot of the latest content, so nothing is missed.
   */
  hasReceivers?: () => boolean;
}

/**
 * Sends accepted updates to devices in the background, from delivery jobs
 * (docs/contract/durable-delivery.md): the instance that accepted an update claims its job
 * at once, and every instance also claims the jobs nobody works on. The publisher's
 * request never waits for devices, and one failing device never fails the request nor the
 * others.
 */
export function createDeviceFanout(deps: FanoutDeps): DeviceFanout {
  const { storage, clock, logger, observer, hasReceivers = () => true } = deps;
  const options = { ...DEFAULT_DELIVERY, ...deps.delivery };
  const instanceId = deps.delivery?.instanceId ?? crypto.randomUUID();
  const sinks = (deps.hosts ?? []).map((host) => collectDeadLetters(host, { storage, clock, logger, observer }));
  const transport = combineTransports([deps.deviceStream, ...sinks.map((sink) => sink.transport)]);
  const sink = everySink(transport, sinks);
  const runner = new JobRunner({
    storage,
    transport,
    sink,
    clock,
    logger,
    observer,
    instanceId,
    leaseMs: options.leaseMs,
    hasReceivers,
    broadcasters: sinks.map((sink) => sink.transport).filter((host) => host.broadcastActivity !== undefined),
    deviceStream: streamReach(deps.deviceStream),
  });
  const inFlight = new Set<Promise<unknown>>();
  const dueClaims = new Map<string, { job: DeliveryJob; handle: unknown }>();
  let closed = false;

  const track = (work: Promise<unknown>): void => {
    const settled = work.catch((error: unknown) => logger.error('device delivery failed', { error: String(error) }));
    inFlight.add(settled);
    void settled.finally(() => inFlight.delete(settled));
  };
  const terms = () => ({ instanceId, now: clock.now(), leaseMs: options.leaseMs });
  const writeTerms: WriteClaimTerms = { instanceId, leaseMs: options.leaseMs };

  /** Whether the write that returned `job` claimed it for this instance (see `writeClaim`). */
  const heldHere = (job: DeliveryJob): boolean => job.leasedBy === instanceId;

  /**
   * Runs a job this instance's write claimed, with the audience that write read, if it did
   * (docs/decisions/0119-audience-in-the-write.md). Closed meanwhile: the lease is given
   * back, so that another instance takes the job at once rather than when the lease lapses.
   */
  const runHeld = (job: DeliveryJob, written?: ActivityRecord | WidgetRecord, audience?: readonly string[]): Promise<void> => {
    if (!closed) return runner.run(job, written, audience);
    const { accountId, kind, slug, generation } = job;
    return storage.releaseDeliveryJob({ accountId, kind, slug, generation, instanceId });
  };

  /**
   * Claims the job this instance wrote and runs it; null (someone else has it, or it was
   * superseded) does nothing. `written`: the record the job's own write returned, which
   * the run then need not read again.
   */
  const claimAndRun = async (job: DeliveryJob, written?: ActivityRecord | WidgetRecord): Promise<void> => {
    if (closed) return;
    const claimed = await storage.claimDeliveryJob(job, job.generation, terms());
    if (claimed !== null) await runner.run(claimed, written);
  };

  /**
   * At the job's due time (a widget's trailing push), this instance claims it if nobody has.
   * One timer per resource: a newer job of the same widget, due at the same window's end,
   * takes the waiting one's place, so a burst of updates costs one claim, not one each.
   */
  const claimWhenDue = (job: DeliveryJob): void => {
    const key = `${job.kind}\n${job.accountId}\n${job.slug}`;
    const waiting = dueClaims.get(key);
    if (waiting !== undefined && waiting.job.dueAt === job.dueAt) {
      if (job.generation > waiting.job.generation) waiting.job = job;
      return;
    }
    if (waiting !== undefined) clock.clearTimeout(waiting.handle);
    const entry = {
      job,
      handle: clock.setTimeout(
        () => {
          if (dueClaims.get(key) === entry) dueClaims.delete(key);
          track(claimAndRun(entry.job));
        },
        Math.max(0, job.dueAt - clock.now()),
      ),
    };
    dueClaims.set(key, entry);
  };

  /**
   * A phone that pressed a tile in the last 15 s gets this update at once, throttle or
   * not, since it confirms its press (docs/contract/device-api.md#press-confirm-unthrottled);
   * its note is used up so only the next update skips the throttle. Not a job: the
   * widget's job reaches it too, at the window's end.
   */
  const confirmPressers = async (widget: WidgetRecord): Promise<void> => {
    const pressers = await consumePressNotes(widgetKey(widget.accountId, widget.slug));
    if (pressers.length === 0 || widget.updatedAt === null) return;
    const push = widgetPush(widget);
    await sendPaced(pressers, (id) => transport.pushWidget(id, push), logger);
    await sink.flush();
  };

  /** The phones with a pending press note on the widget; their notes are used up (set to expire now). */
  const consumePressNotes = async (key: string): Promise<string[]> => {
    const now = clock.now();
    const pressers = await storage.listRecentPressers(key, now);
    await Promise.all(pressers.map((deviceId) => storage.notePress({ widgetKey: key, deviceId, until: now })));
    return pressers;
  };

  /**
   * Delivers a widget update: at once when its window is over, else at the window's end,
   * confirming recent presses now. Undefined when this instance can reach nobody: no
   * promise, no timer per `PATCH` then.
   */
  const widgetDelivery = (widget: WidgetRecord, job: DeliveryJob, audience?: readonly string[]): Promise<void> | undefined => {
    const held = heldHere(job);
    // Nobody to reach from here: the job is left to the pollers (see `activityChanged`).
    if (!held && !hasReceivers()) return undefined;
    if (held || job.dueAt <= clock.now()) {
      // Everyone gets this update at once: pending confirmations are fulfilled by it.
      return consumePressNotes(widgetKey(widget.accountId, widget.slug)).then(() => (held ? runHeld(job, widget, audience) : claimAndRun(job, widget)));
    }
    return confirmPressers(widget).then(() => {
      if (!closed) claimWhenDue(job);
    });
  };

  const stopPolling =
    options.pollMs > 0
      ? startJobPoller({
          storage,
          clock,
          logger,
          instanceId,
          leaseMs: options.leaseMs,
          pollMs: options.pollMs,
          capacity: () => (closed ? 0 : options.maxJobs - runner.size),
          run: (job) => track(runner.run(job)),
        })
      : () => {};

  const handBack = async (): Promise<number> => {
    closed = true;
    stopPolling();
    for (const { handle } of dueClaims.values()) clock.clearTimeout(handle);
    dueClaims.clear();
    sink.stop();
    return runner.release();
  };

  return {
    // An instance that can reach no device does not claim the job it writes: the next poll
    // of any instance does (docs/contract/durable-delivery.md#durable-nobody-to-reach), so
    // one that can reach a device delivers it, and one that cannot finishes it unsent.
    writeClaim: () => (closed || !hasReceivers() ? undefined : writeTerms),
    activityChanged(activity, transition, job, audience) {
      if (transition === 'none' || job === null) return;
      // A broadcast activity's channels may be set by a run after this write: its run reads them.
      const written = activity.delivery === 'tokens' ? activity : undefined;
      // Claimed by the write (see `writeClaim`); else, by a store that ignores the claim or
      // with no claim asked, claimed now unless nobody can be reached from here.
      if (heldHere(job)) track(runHeld(job, written, audience));
      else if (hasReceivers()) track(claimAndRun(job, written));
    },
    widgetChanged(widget, job, audience) {
      const delivering = widgetDelivery(widget, job, audience);
      if (delivering !== undefined) track(delivering);
    },
    async idle() {
      while (inFlight.size > 0) await Promise.all([...inFlight]);
    },
    handBack,
    async close() {
      await handBack();
    },
  };
}

/** The device stream as a broadcast's devices reach it, when it can tell who is connected. */
function streamReach(stream: DeviceTransport & Partial<StreamReach>): StreamReach | undefined {
  const { connectedIds } = stream;
  if (connectedIds === undefined) return undefined;
  return { pushActivity: (deviceId, push) => stream.pushActivity(deviceId, push), connectedIds: () => connectedIds.call(stream) };
}

/** The host transports' sinks as one: each flushed and stopped (a failed flush keeps its letters for the next). */
function everySink(transport: DeviceTransport, sinks: readonly DeadLetterSink[]): DeadLetterSink {
  return {
    transport,
    flush: async () => void (await Promise.all(sinks.map((sink) => sink.flush()))),
    stop: () => {
      for (const sink of sinks) sink.stop();
    },
  };
}
