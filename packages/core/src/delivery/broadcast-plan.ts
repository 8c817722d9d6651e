import type { Logger } from '../logger.js';
import { indexAbove } from './audience.js';
import type { DeliveryJob } from '../storage/delivery-jobs.js';
import type { ActivityChannels, ActivityRecord, ApnsEnvironment } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import type { ActivityBroadcast, ActivityPush, BroadcastResult, DeviceTransport } from '../transport/device-transport.js';

/** The APNs environments, in the order channels are made and broadcast. */
const ENVIRONMENTS: readonly ApnsEnvironment[] = ['production', 'sandbox'];

/** What a broadcast activity's job knows once its broadcast went out (or its channels were made ready). */
export interface BroadcastPlan {
  /** The activity's channels, for the start pushes of devices that follow channels. */
  channels: ActivityChannels;
  /** The devices the broadcast reached (followers of the covered environments), ascending: left out of per-device updates and ends. */
  reached: readonly string[];
}

export interface BroadcastPlanDeps {
  storage: Storage;
  /** The host transports that can broadcast (`DeviceTransport.broadcastActivity`). */
  broadcasters: readonly DeviceTransport[];
  logger: Logger;
}

/**
 * Runs the broadcast step of a job of a broadcast activity, before its devices are walked
 * (docs/contract/broadcast-channels.md): at a start the transport makes a channel for each
 * environment in which a device of the account follows channels
 * (docs/contract/broadcast-channels.md#broadcast-channel-on-start); an update or end goes
 * out as one broadcast per environment with a channel
 * (docs/contract/broadcast-channels.md#broadcast-update-end). A job resumed after its first
 * batch (cursor past the start) does not broadcast again: its first run did, before any
 * device. Null for token delivery, or without a transport that broadcasts.
 */
export async function planBroadcast(deps: BroadcastPlanDeps, job: DeliveryJob, activity: ActivityRecord, push: ActivityPush): Promise<BroadcastPlan | null> {
  if (activity.delivery !== 'broadcast' || deps.broadcasters.length === 0) return null;
  let channels = activity.channels;
  let covered: ApnsEnvironment[] = [];
  // An update that superseded a start before it reached any device owes every device the
  // start: it is the run's start, and makes its channels (docs/contract/broadcast-channels.md#broadcast-channel-on-start).
  // Else its start pushes would name the stored channels of the last run (deleted once the
  // superseded start stores its own) or none, while later updates go out on the new ones.
  const phase = job.startAbove === '' ? 'start' : push.phase;
  if (job.cursor === '') {
    const environments = phase === 'start' ? await environmentsInUse(deps.storage, activity.accountId) : withChannel(channels);
    // A start always asks: the transport also retires the channels of the activity's last run.
    if (phase === 'start' || environments.length > 0) {
      for (const broadcaster of deps.broadcasters) {
        const result = await broadcastWith(deps.logger, broadcaster, {
          push: { ...push, phase, channels },
          frequentUpdates: activity.frequentUpdates,
          environments,
        });
        channels = result.channels;
        covered = union(covered, result.covered);
      }
    }
  } else if (phase !== 'start') {
    // Resumed: the first run's broadcast reached the followers of every environment with a channel.
    covered = withChannel(channels);
  }
  const reached = covered.length === 0 ? [] : await deps.storage.listChannelFollowers(activity.accountId, covered);
  return { channels, reached };
}

/** The environments in which some device of the account follows channels: one channel each. */
async function environmentsInUse(storage: Storage, accountId: string): Promise<ApnsEnvironment[]> {
  const followers = await Promise.all(ENVIRONMENTS.map((environment) => storage.listChannelFollowers(accountId, [environment])));
  return ENVIRONMENTS.filter((_, index) => followers[index]!.length > 0);
}

const withChannel = (channels: ActivityChannels): ApnsEnvironment[] => ENVIRONMENTS.filter((environment) => channels[environment] !== null);

const union = (a: readonly ApnsEnvironment[], b: readonly ApnsEnvironment[]): ApnsEnvironment[] => ENVIRONMENTS.filter((e) => a.includes(e) || b.includes(e));

/** A broadcast that throws (the hook must not) reaches nobody: every device gets its per-device push instead. */
async function broadcastWith(
  logger: Logger,
  broadcaster: DeviceTransport,
  broadcast: ActivityBroadcast & { push: { channels: ActivityChannels } },
): Promise<BroadcastResult> {
  try {
    return await broadcaster.broadcastActivity!(broadcast);
  } catch (error) {
    logger.error('broadcast failed; its devices get per-device pushes', { transport: broadcaster.name, error: String(error) });
    return { covered: [], channels: broadcast.push.channels };
  }
}

/**
 * `devices` (ascending) without those in `reached` (ascending) for which `leaveOut` holds:
 * one merge walk, no set of a hundred thousand ids per update.
 */
export function withoutReached(devices: readonly string[], reached: readonly string[], leaveOut: (deviceId: string) => boolean): readonly string[] {
  if (reached.length === 0) return devices;
  const kept: string[] = [];
  let r = 0;
  for (const deviceId of devices) {
    while (r < reached.length && reached[r]! < deviceId) r += 1;
    if (r < reached.length && reached[r] === deviceId && leaveOut(deviceId)) continue;
    kept.push(deviceId);
  }
  return kept;
}

/** True when ascending `sorted` holds `id` (bisection). */
export function holds(sorted: readonly string[], id: string): boolean {
  return sorted[indexAbove(sorted, id, true)] === id;
}
