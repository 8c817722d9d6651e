import type { Clock, Logger } from '@tilecast/core';
import { answerFields } from '@tilecast/core/push';
import type { Attempts } from './attempts.js';
import type { ChannelManagement, ManageAnswer } from './channel-management.js';
import type { ApnsCounters } from './counters.js';
import { APNS_EXPIRATION_S } from './delivery.js';
import type { ApnsEnvironment, ApnsHeldChannel, ApnsRegistry } from './registry.js';

/** What one sweep of the app's channels found and did (`ApnsTransport.sweepChannels`). */
export interface ChannelSweepReport {
  /** Channels APNs listed (each management host once). */
  listed: number;
  /** Listed channels no stored activity holds (what a crash can leave behind). */
  orphans: number;
  /** Listed channels of activities that ended and whose dismissal delay has passed. */
  ended: number;
  /** Orphan and ended channels deleted (the ended ones also forgotten in the registry). */
  deleted: number;
  /** Orphan and ended channels left for the next sweep: past the limit of a sweep, or not deleted. */
  left: number;
}

export interface SweepOptions {
  registry: Pick<ApnsRegistry, 'heldChannels' | 'setActivityChannel'>;
  management: ChannelManagement;
  /** The management origin of an environment: one listing per origin. */
  originOf: (environment: ApnsEnvironment) => string;
  attempts: Attempts;
  /** Deletions a sweep makes at most. */
  limit: number;
  counters: ApnsCounters;
  clock: Clock;
  logger: Logger;
  /** True once the transport is closed: the sweep stops without a word. */
  closed: () => boolean;
}

const ENVIRONMENTS: readonly ApnsEnvironment[] = ['production', 'sandbox'];

/**
 * The start-up sweep (docs/contract/broadcast-channels.md#broadcast-orphan-cleanup): lists the
 * app's channels in each environment and deletes those no stored activity holds, and those
 * of an activity that is no longer live and whose dismissal delay has passed since its last
 * update (an end whose planned deletion died with its process: docs/contract/broadcast-channels.md#broadcast-channel-deletion).
 * At most `limit` deletions a sweep; the rest waits for the next start. A channel another
 * instance made and has not stored yet may be taken for an orphan: its first broadcast then
 * answers `ChannelNotRegistered` and a new one is made (docs/contract/broadcast-channels.md#broadcast-answers).
 */
export async function sweepChannels(options: SweepOptions): Promise<ChannelSweepReport> {
  const { registry, logger, clock } = options;
  const report: ChannelSweepReport = { listed: 0, orphans: 0, ended: 0, deleted: 0, left: 0 };
  const listings = await listChannels(options);
  if (listings === null) return report;
  // Read after the listings: a channel made before a listing and stored since is held, not taken for an orphan.
  const holders = new Map((await registry.heldChannels()).map((held) => [held.channelId, held]));
  const ended = (held: ApnsHeldChannel) => !held.live && (held.updatedAt === null || Date.parse(held.updatedAt) + held.dismissalDelayS * 1000 <= clock.now());
  let budget = options.limit;
  for (const { environment, channelIds } of listings) {
    report.listed += channelIds.length;
    for (const channelId of channelIds) {
      const holder = holders.get(channelId);
      if (holder !== undefined && !ended(holder)) continue;
      if (holder === undefined) report.orphans += 1;
      else report.ended += 1;
      if (budget <= 0) {
        report.left += 1;
        continue;
      }
      budget -= 1;
      if (await deleteSwept(options, holder?.environment ?? environment, channelId, holder)) report.deleted += 1;
      else report.left += 1;
      if (options.closed()) return report;
    }
  }
  logger.info('apns: channel sweep done', { ...report });
  return report;
}

/**
 * The channels of each management origin (both environments share one in tests), or null
 * when there is nothing to sweep: broadcast is not enabled for the app (said once, as
 * information), or the transport closed.
 */
async function listChannels(options: SweepOptions): Promise<Array<{ environment: ApnsEnvironment; channelIds: string[] }> | null> {
  const listings: Array<{ environment: ApnsEnvironment; channelIds: string[] }> = [];
  const origins = new Set<string>();
  for (const environment of ENVIRONMENTS) {
    const origin = options.originOf(environment);
    if (origins.has(origin)) continue;
    origins.add(origin);
    const listing = await manage(options, (authorization) => options.management.list(environment, authorization));
    if (options.closed()) return null;
    if (listing.kind === 'ok') listings.push({ environment, channelIds: listing.value });
    else if (listing.kind === 'answer' && listing.reason === 'FeatureNotEnabled') {
      options.logger.info('apns: channel sweep skipped: broadcast is not enabled for this app (FeatureNotEnabled)');
      return null;
    } else options.logger.warn('apns: channel sweep could not list the channels', { environment, ...answerFields(listing) });
  }
  return listings;
}

/** Deletes a swept channel and forgets it where an ended activity holds it; true when it is gone. */
async function deleteSwept(options: SweepOptions, environment: ApnsEnvironment, channelId: string, holder: ApnsHeldChannel | undefined): Promise<boolean> {
  const answer = await manage(options, (authorization) => options.management.delete(environment, channelId, authorization));
  const gone = answer.kind === 'ok' || (answer.kind === 'answer' && answer.reason === 'ChannelNotRegistered');
  if (!gone) return false;
  if (answer.kind === 'ok') options.counters.orphansDeleted += 1;
  if (holder !== undefined) await options.registry.setActivityChannel(holder.owner, holder.slug, holder.environment, null, { ifChannel: channelId });
  return true;
}

function manage<T>(options: SweepOptions, send: (authorization: string) => Promise<ManageAnswer<T>>): Promise<ManageAnswer<T>> {
  return options.attempts.run(send, options.clock.now() + APNS_EXPIRATION_S * 1000);
}
