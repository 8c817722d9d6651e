import type { Clock } from '../clock.js';
import { isStorageUnavailable } from '../errors.js';
import type { Logger } from '../logger.js';
import type { DeliveryJobObservation, SafeObserver } from '../observer.js';
import { type DeliveryJob, type DeliveryJobRef, type DeliveryPhase, phaseFor } from '../storage/delivery-jobs.js';
import type { ActivityRecord, WidgetRecord } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import type { ActivityPush, DeviceTransport, WidgetPush } from '../transport/device-transport.js';
import { activityPush, widgetPush } from '../transport/pushes.js';
import { after, audienceOf } from './audience.js';
import { holds, planBroadcast, withoutReached } from './broadcast-plan.js';
import type { DeadLetterSink } from './dead-letter-sink.js';
import { sendPaced } from './paced-send.js';

/**
 * Devices per recorded step of a job's progress: a job resumed after a crash sends at most
 * this many devices a second time (docs/contract/durable-delivery.md#durable-job-resume).
 */
export const DELIVERY_BATCH = 500;

export interface JobRunnerDeps {
  storage: Storage;
  /** Every transport, the host's wrapped by `sink`. */
  transport: DeviceTransport;
  sink: DeadLetterSink;
  clock: Clock;
  logger: Logger;
  observer?: SafeObserver;
  instanceId: string;
  leaseMs: number;
  batchSize?: number;
  /** False while no push can reach anyone: a job is then done at once (a device that connects later gets a snapshot). */
  hasReceivers: () => boolean;
  /** The host transports that can broadcast (`DeviceTransport.broadcastActivity`); none by default. */
  broadcasters?: readonly DeviceTransport[];
  /**
   * This instance's device stream: a device a broadcast reached still gets the push on its
   * open `/device/stream` (docs/contract/broadcast-channels.md#broadcast-update-end).
   */
  deviceStream?: StreamReach;
}

/** What the runner needs of the device stream for the devices a broadcast reached. */
export interface StreamReach {
  pushActivity(deviceId: string, push: ActivityPush): Promise<unknown>;
  /** The devices with an open stream here. */
  connectedIds(): Iterable<string>;
}

/** How a job's devices are sent to: per device, and which devices a broadcast reached already. */
interface Sender {
  send(deviceId: string): Promise<unknown>;
  /** Ascending; each one's push (other than a start still owed) went by broadcast. */
  reached: readonly string[];
  /** The push those devices were reached with. */
  broadcast: ActivityPush | null;
}

type Stop = 'stopped' | 'released';

interface Run {
  readonly ref: DeliveryJobRef;
  readonly resumed: boolean;
  stop: Stop | null;
  /** The record the job's own write returned, if the caller had it (see `run`). */
  readonly latest: ActivityRecord | WidgetRecord | undefined;
  /** The job's audience as the write that claimed it read it, if it did (see `run`). */
  readonly audience: readonly string[] | undefined;
  /** The last device id recorded as done. */
  cursor: string;
  /** The last progress write: the next one waits for it (see `record`). */
  written: Promise<unknown>;
  readonly done: Promise<void>;
}

/**
 * Works through claimed delivery jobs: reads the resource's latest state, hands its devices
 * to the transports in batches, records each batch as progress (which renews the lease),
 * and marks the job done. A newer generation of the same resource stops an older run here
 * at once; one elsewhere learns it at its next progress record.
 */
export class JobRunner {
  private readonly running = new Map<string, Run>();
  private readonly batchSize: number;

  constructor(private readonly deps: JobRunnerDeps) {
    this.batchSize = deps.batchSize ?? DELIVERY_BATCH;
  }

  /**
   * Runs `job`, which this instance has just claimed; resolves when the run ends (never
   * rejects). With nobody to reach, the job is done at once, without a run (no lease
   * renewal, no bookkeeping): a device that connects later starts from a snapshot.
   * `written` is the record the write of this very generation returned, when the caller
   * has it: the claim of that generation proves it is still the latest state, so it is not
   * read again. `audience` is the job's audience as the write that claimed it read it
   * (`WrittenAudience`, docs/decisions/0119-audience-in-the-write.md): the run walks it
   * instead of reading the devices itself. Absent (a job claimed any other way), the run
   * reads them (`audienceOf`).
   */
  run(job: DeliveryJob, written?: ActivityRecord | WidgetRecord, audience?: readonly string[]): Promise<void> {
    const key = `${job.kind}\n${job.accountId}\n${job.slug}`;
    const current = this.running.get(key);
    if (current !== undefined) {
      if (current.ref.generation >= job.generation) return current.done;
      current.stop = 'stopped';
    }
    if (!this.deps.hasReceivers()) return this.completeUnsent(job);
    const run: { -readonly [K in keyof Run]: Run[K] } = {
      ref: this.refOf(job),
      resumed: job.resumed > 0,
      stop: null,
      cursor: job.cursor,
      latest: written,
      audience,
      written: Promise.resolve(),
      done: Promise.resolve(),
    };
    run.done = this.work(job, run).finally(() => {
      if (this.running.get(key) === run) this.running.delete(key);
    });
    this.running.set(key, run);
    return run.done;
  }

  /** `job` as this instance holds it. */
  private refOf(job: DeliveryJob): DeliveryJobRef {
    return { accountId: job.accountId, kind: job.kind, slug: job.slug, generation: job.generation, instanceId: this.deps.instanceId };
  }

  /** Marks `job` done without sending anything (see `run`). */
  private async completeUnsent(job: DeliveryJob): Promise<void> {
    let outcome: DeliveryJobObservation['outcome'] = 'done';
    try {
      await this.deps.storage.completeDeliveryJob(this.refOf(job));
    } catch (error) {
      outcome = 'failed';
      this.logFailure(job, error);
    }
    this.deps.observer?.deliveryJobEnded({ kind: job.kind, outcome, resumed: job.resumed > 0 });
  }

  private logFailure(job: DeliveryJob, error: unknown): void {
    this.deps.logger.error('delivery job failed; it is resumed when its lease lapses', {
      kind: job.kind,
      accountId: job.accountId,
      slug: job.slug,
      error: String(error),
    });
  }

  /** Jobs being worked on here. */
  get size(): number {
    return this.running.size;
  }

  /**
   * Graceful shutdown: every run stops handing devices over, and its job is given back at
   * once with its recorded progress (docs/contract/durable-delivery.md#durable-job-resume),
   * without waiting for the pushes in flight: another instance can claim it meanwhile.
   */
  async release(): Promise<number> {
    const runs = [...this.running.values()].filter((run) => run.stop === null);
    for (const run of runs) run.stop = 'released';
    await Promise.all(
      runs.map((run) =>
        this.deps.storage.releaseDeliveryJob(run.ref).catch((error: unknown) => {
          this.deps.logger.warn('delivery job not released; it is resumed when its lease lapses', { error: String(error) });
        }),
      ),
    );
    return runs.length;
  }

  private async work(job: DeliveryJob, run: Run): Promise<void> {
    const { storage, observer } = this.deps;
    const renewal = this.renewLease(run);
    let outcome: DeliveryJobObservation['outcome'] = 'done';
    try {
      await this.sendAll(job, run);
      outcome = run.stop ?? 'done';
      // A released job was given back by `release`; a stopped one belongs to someone else now.
      // Not completed: a newer generation or another holder has it now.
      if (outcome === 'done' && !(await storage.completeDeliveryJob(run.ref))) outcome = 'stopped';
    } catch (error) {
      outcome = 'failed';
      this.logFailure(job, error);
    } finally {
      renewal.stop();
      await this.deps.sink.flush();
      observer?.deliveryJobEnded({ kind: job.kind, outcome, resumed: run.resumed });
    }
  }

  /**
   * Every device after the job's cursor, batch by batch, each batch recorded. A batch in
   * which a push could not be tried because the store did not answer is not recorded: the
   * run fails, and the job is resumed from the batch before once its lease lapses
   * (docs/contract/durable-delivery.md#durable-store-outage).
   */
  private async sendAll(job: DeliveryJob, run: Run): Promise<void> {
    const { storage } = this.deps;
    const sender = await this.senderFor(job, run.latest);
    if (sender === null) return;
    const { send } = sender;
    const audience = run.audience ?? (await audienceOf(storage, job));
    const devices = this.perDevice(job, sender, after(audience, job.cursor));
    let outage: unknown = null;
    const attempt = (deviceId: string) =>
      send(deviceId).catch((error: unknown) => {
        if (isStorageUnavailable(error)) outage ??= error;
        throw error;
      });
    for (let start = 0; start < devices.length && run.stop === null; start += this.batchSize) {
      const batch = devices.slice(start, start + this.batchSize);
      await sendPaced(batch, attempt, this.deps.logger, () => run.stop !== null);
      await this.deps.sink.flush();
      if (outage !== null) throw outage;
      if (run.stop !== null) return;
      // The last batch is recorded by the completion itself: one statement less per job. A
      // crash in between resends that batch at most (docs/contract/durable-delivery.md#durable-job-resume).
      if (start + this.batchSize >= devices.length) return;
      if (!(await this.record(run, batch[batch.length - 1]!))) run.stop ??= 'stopped';
    }
  }

  /**
   * Records progress up to `cursor` (a batch done), or renews the lease at the progress
   * recorded so far (`cursor` omitted). One write at a time per run, each after the one
   * before: a renewal that read the cursor before a batch was recorded must not land after
   * that batch's write and put the cursor back (a resume would then send two batches again).
   */
  private record(run: Run, cursor?: string): Promise<boolean> {
    const { storage, clock, leaseMs } = this.deps;
    const write = run.written.then(async () => {
      const next = cursor ?? run.cursor;
      const held = await storage.recordDeliveryProgress(run.ref, { cursor: next, now: clock.now(), leaseMs });
      if (held) run.cursor = next;
      return held;
    });
    run.written = write.catch(() => {});
    return write;
  }

  /** How the job's devices are sent the resource's latest state; null when there is nothing to send (deleted, never published). */
  private async senderFor(job: DeliveryJob, written?: ActivityRecord | WidgetRecord): Promise<Sender | null> {
    const { storage, transport } = this.deps;
    if (job.kind === 'widget') {
      const widget = (written as WidgetRecord | undefined) ?? (await storage.getWidget(job.accountId, job.slug));
      if (widget === null || widget.updatedAt === null) return null;
      const push: WidgetPush = widgetPush(widget as WidgetRecord);
      return { send: (deviceId) => transport.pushWidget(deviceId, push), reached: [], broadcast: null };
    }
    const activity = (written as ActivityRecord | undefined) ?? ((await storage.getActivity(job.accountId, job.slug)) as ActivityRecord | null);
    if (activity === null || activity.updatedAt === null) return null;
    const jobPush = activityPush(activity, job.phase as ActivityPush['phase']);
    const plan = await planBroadcast({ storage, broadcasters: this.deps.broadcasters ?? [], logger: this.deps.logger }, job, activity, jobPush);
    const channels = plan?.channels;
    // One push object per phase, shared by every device of the job.
    const pushes = new Map<DeliveryPhase, ActivityPush>();
    const pushFor = (phase: DeliveryPhase): ActivityPush => {
      let push = pushes.get(phase);
      if (push === undefined) {
        push = activityPush(activity, phase as ActivityPush['phase']);
        if (channels !== undefined) push.channels = channels;
        pushes.set(phase, push);
      }
      return push;
    };
    return {
      send: (deviceId) => transport.pushActivity(deviceId, pushFor(phaseFor(job, deviceId))),
      reached: plan?.reached ?? [],
      broadcast: plan === null ? null : pushFor(job.phase),
    };
  }

  /**
   * The devices to push to one by one: `devices` without those a broadcast reached, unless
   * they are still owed a start (a start is per device:
   * docs/contract/broadcast-channels.md#broadcast-start). Those reached that have a stream
   * open here get the push on it.
   */
  private perDevice(job: DeliveryJob, sender: Sender, devices: readonly string[]): readonly string[] {
    if (sender.reached.length === 0) return devices;
    const reachedBy = (deviceId: string) => phaseFor(job, deviceId) !== 'start';
    const stream = this.deps.deviceStream;
    if (stream !== undefined && sender.broadcast !== null) {
      for (const deviceId of stream.connectedIds()) {
        if (holds(sender.reached, deviceId) && reachedBy(deviceId)) void stream.pushActivity(deviceId, sender.broadcast);
      }
    }
    // Every device follows a covered channel and none is owed a start (the reached are
    // devices of the account, as the audience is): nothing to walk, at any audience size.
    if (job.startAbove === null && job.cursor === '' && sender.reached.length === devices.length) return [];
    return withoutReached(devices, sender.reached, reachedBy);
  }

  /** Renews the lease a third of the way through it, as long as the run lasts: a long batch (a slow push service) keeps its job. */
  private renewLease(run: Run): { stop(): void } {
    const { clock, leaseMs, logger } = this.deps;
    let handle: unknown;
    let stopped = false;
    const renew = () => {
      if (stopped || run.stop !== null) return;
      this.record(run).then(
        (held) => {
          if (!held) run.stop ??= 'stopped';
          else schedule();
        },
        (error: unknown) => {
          logger.warn('delivery job lease not renewed', { error: String(error) });
          schedule();
        },
      );
    };
    const schedule = () => {
      if (!stopped) handle = clock.setTimeout(renew, Math.max(1, Math.floor(leaseMs / 3)));
    };
    schedule();
    return {
      stop() {
        stopped = true;
        clock.clearTimeout(handle);
      },
    };
  }
}
