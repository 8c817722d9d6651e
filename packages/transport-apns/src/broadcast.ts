import type { ActivityBroadcast, ActivityChannels, ActivityPush, BroadcastResult, Clock, Logger } from '@tilecast/core';
import { answerFields, type Connections, type PushAnswer } from '@tilecast/core/push';
import type { Attempts } from './attempts.js';
import type { BroadcastRequest } from './broadcast-request.js';
import type { ChannelManagement, ManageAnswer, StoragePolicy } from './channel-management.js';
import type { ApnsCounters } from './counters.js';
import { APNS_EXPIRATION_S } from './delivery.js';
import { dismissalDate, type PushBuilder } from './payloads.js';
import type { ApnsEnvironment, ApnsRegistry } from './registry.js';

export interface BroadcasterOptions {
  bundleId: string;
  registry: Pick<ApnsRegistry, 'setActivityChannel' | 'heldChannels'>;
  management: ChannelManagement;
  /** Where broadcasts are sent: the push hosts (docs/contract/broadcast-channels.md#broadcast-reference-settings). */
  connections: Connections<BroadcastRequest>;
  originOf: (environment: ApnsEnvironment) => string;
  attempts: Attempts;
  builder: PushBuilder;
  /** `apns-priority` of updates (docs/contract/apns.md#apns-priority). */
  updatePriority: 5 | 10;
  counters: ApnsCounters;
  clock: Clock;
  logger: Logger;
}

/** Answers after which a broadcast is sent again on a new channel (docs/contract/broadcast-channels.md#broadcast-answers). */
const RECREATE: ReadonlySet<string | null> = new Set(['ChannelNotRegistered', 'BadChannelId']);

const reasonOf = (answer: { kind: string; reason?: string | null }): string | null => (answer.kind === 'answer' ? (answer.reason ?? null) : null);

/** What the logs name a broadcast by (never a channel's followers). */
const about = (push: ActivityPush, environment: ApnsEnvironment): Record<string, unknown> => ({
  owner: push.owner,
  slug: push.slug,
  phase: push.phase,
  environment,
});

/**
 * `DeviceTransport.broadcastActivity` (docs/contract/broadcast-channels.md): channels made
 * at a start, one broadcast per environment for an update or an end, the channel deleted
 * once an end's dismissal delay has passed. Never rejects: what it could not do is left to
 * per-device pushes (the environment is not `covered`).
 */
export class Broadcaster {
  /** `FeatureNotEnabled` was answered: broadcast is off until the process restarts. */
  private off = false;
  /** Channels to delete once their activity's end is dismissed, by id: their timers. */
  private readonly deletions = new Map<string, unknown>();
  private sequence = 0;

  constructor(private readonly options: BroadcasterOptions) {}

  async broadcast({ push, frequentUpdates, environments }: ActivityBroadcast): Promise<BroadcastResult> {
    const channels: ActivityChannels = { production: push.channels?.production ?? null, sandbox: push.channels?.sandbox ?? null };
    // docs/contract/broadcast-channels.md#broadcast-storage-policy
    const policy: StoragePolicy = frequentUpdates ? 0 : 1;
    try {
      if (push.phase === 'start') {
        await Promise.all(environments.map((environment) => this.startIn(push, environment, policy, channels)));
        return { covered: [], channels };
      }
      const sent = await Promise.all(environments.map((environment) => this.sendIn(push, environment, policy, channels)));
      return { covered: environments.filter((_, index) => sent[index]), channels };
    } catch (error) {
      // A registry that failed: nothing is covered, the devices get per-token pushes.
      this.options.logger.error('apns: broadcast failed', { owner: push.owner, slug: push.slug, phase: push.phase, error: String(error) });
      return { covered: [], channels };
    }
  }

  /** Forgets the deletions planned (the start-up sweep of the next process deletes those channels). */
  close(): void {
    for (const timer of this.deletions.values()) this.options.clock.clearTimeout(timer);
    this.deletions.clear();
  }

  /**
   * A start makes a new channel in `environment` and stores it in place of the stored one,
   * which is deleted: ids are never reused
   * (docs/contract/broadcast-channels.md#broadcast-channel-on-start,
   * docs/contract/broadcast-channels.md#broadcast-channel-deletion). Without a new one, the
   * old one is forgotten too: this start's devices do not follow it, and the updates to come
   * must reach them per token.
   */
  private async startIn(push: ActivityPush, environment: ApnsEnvironment, policy: StoragePolicy, channels: ActivityChannels): Promise<void> {
    const old = channels[environment];
    const created = this.off ? null : await this.create(push, environment, policy);
    if (created === null) {
      channels[environment] = null;
      if (old !== null && (await this.forget(push, environment, old)) && !this.off) await this.deleteNow(environment, old);
      return;
    }
    const stored = await this.storeAtStart(push, environment, created, old);
    if (stored === undefined) {
      this.options.logger.warn('apns: new channel not stored (the activity is gone); deleted', about(push, environment));
      channels[environment] = null;
      await this.deleteNow(environment, created);
      return;
    }
    channels[environment] = stored.channel;
    if (stored.retired !== null) await this.deleteNow(environment, stored.retired);
  }

  /**
   * Stores `created` in place of `expected` (compare-and-set). When another start of the
   * activity stored its own channel meanwhile (a start an update superseded while it still
   * ran, another instance's start), that one is kept and `created` retired: whichever
   * order the two store in, both starts' devices are told the one channel that stays
   * (docs/contract/broadcast-channels.md#broadcast-start). Answers the channel to name and
   * the one to delete, or undefined when nothing was stored (the activity is gone).
   */
  private async storeAtStart(
    push: ActivityPush,
    environment: ApnsEnvironment,
    created: string,
    expected: string | null,
  ): Promise<{ channel: string; retired: string | null } | undefined> {
    const { registry } = this.options;
    if (await registry.setActivityChannel(push.owner, push.slug, environment, created, { ifChannel: expected })) return { channel: created, retired: expected };
    const held = await registry.heldChannels();
    const current = held.find((h) => h.owner === push.owner && h.slug === push.slug && h.environment === environment)?.channelId ?? null;
    if (current === expected) return undefined;
    if (current !== null) return { channel: current, retired: created };
    // Forgotten meanwhile (the last run's, dismissed): nothing to keep.
    return (await registry.setActivityChannel(push.owner, push.slug, environment, created, { ifChannel: null }))
      ? { channel: created, retired: null }
      : undefined;
  }

  /**
   * One broadcast of an update or end in `environment`
   * (docs/contract/broadcast-channels.md#broadcast-update-end); on `ChannelNotRegistered` or
   * `BadChannelId`, once more on a new channel (docs/contract/broadcast-channels.md#broadcast-answers).
   * True when APNs accepted it.
   */
  private async sendIn(push: ActivityPush, environment: ApnsEnvironment, policy: StoragePolicy, channels: ActivityChannels): Promise<boolean> {
    const stored = channels[environment];
    if (stored === null || this.off) return false;
    let answer = await this.post(push, environment, stored, policy);
    if (answer.kind === 'answer' && answer.status === 400 && RECREATE.has(answer.reason)) {
      const fresh = await this.replaceDead(push, environment, stored, policy);
      channels[environment] = fresh;
      if (fresh !== null) answer = await this.post(push, environment, fresh, policy);
    }
    const sent = answer.kind === 'answer' && answer.status === 200;
    if (sent) this.options.counters.broadcastsSent += 1;
    else {
      this.options.counters.broadcastsFailed += 1;
      if (reasonOf(answer) === 'FeatureNotEnabled') this.turnOff();
      else this.options.logger.warn('apns: broadcast not sent; its followers get per-token pushes', { ...about(push, environment), ...answerFields(answer) });
    }
    // Sent or not, the activity has ended: its channel is of no more use once dismissed.
    const channelId = channels[environment];
    if (push.phase === 'end' && channelId !== null && !this.off) this.deleteAfterDismissal(push, environment, channelId);
    return sent;
  }

  /**
   * APNs no longer knows `dead`: a new channel takes its place in the store, if `dead` is
   * still the stored one. Answers the channel to use now, or null (none: `dead` is
   * forgotten, or the store holds a newer one this job does not know).
   */
  private async replaceDead(push: ActivityPush, environment: ApnsEnvironment, dead: string, policy: StoragePolicy): Promise<string | null> {
    const fresh = this.off ? null : await this.create(push, environment, policy);
    if (fresh === null) {
      await this.forget(push, environment, dead);
      return null;
    }
    if (await this.options.registry.setActivityChannel(push.owner, push.slug, environment, fresh, { ifChannel: dead })) return fresh;
    await this.deleteNow(environment, fresh);
    return null;
  }

  /** Sends the broadcast on `channelId`, with retries; answers the last answer. */
  private post(push: ActivityPush, environment: ApnsEnvironment, channelId: string, policy: StoragePolicy): Promise<PushAnswer> {
    const { builder, clock, connections, attempts } = this.options;
    const expiresAt = Math.floor(clock.now() / 1000) + APNS_EXPIRATION_S;
    const request: BroadcastRequest = {
      // Its own key: a broadcast never takes the place of another one waiting for a stream.
      key: `broadcast ${++this.sequence}`,
      channelId,
      priority: push.phase === 'update' ? this.options.updatePriority : 10,
      // docs/contract/broadcast-channels.md#broadcast-storage-policy: policy 0 carries `apns-expiration: 0`.
      expiration: policy === 0 ? 0 : expiresAt,
      body: builder.activityPayload(push).body,
    };
    const origin = this.options.originOf(environment);
    return attempts.run((authorization) => connections.request(origin, request, authorization), expiresAt * 1000);
  }

  /**
   * A new channel, or null: `CannotCreateChannelConfig` (APNs's 10,000 channels) is logged
   * and counted, and that environment falls back to per-token delivery
   * (docs/contract/broadcast-channels.md#broadcast-channel-limit).
   */
  private async create(push: ActivityPush, environment: ApnsEnvironment, policy: StoragePolicy): Promise<string | null> {
    const answer = await this.manage((authorization) => this.options.management.create(environment, policy, authorization));
    if (answer.kind === 'ok') {
      this.options.counters.channelsCreated += 1;
      return answer.value;
    }
    const reason = reasonOf(answer);
    if (reason === 'FeatureNotEnabled') this.turnOff();
    else if (reason === 'CannotCreateChannelConfig') {
      this.options.counters.channelLimitHits += 1;
      this.options.logger.warn(
        'apns: channel limit reached (CannotCreateChannelConfig); the activity falls back to per-token pushes',
        about(push, environment),
      );
    } else
      this.options.logger.warn('apns: channel not created; the activity falls back to per-token pushes', {
        ...about(push, environment),
        ...answerFields(answer),
      });
    return null;
  }

  /** Deletes the channel at APNs; true when it is gone (deleted now, or unknown to APNs already). */
  private async deleteNow(environment: ApnsEnvironment, channelId: string): Promise<boolean> {
    const planned = this.deletions.get(channelId);
    if (planned !== undefined) this.options.clock.clearTimeout(planned);
    this.deletions.delete(channelId);
    const answer = await this.manage((authorization) => this.options.management.delete(environment, channelId, authorization));
    if (answer.kind === 'ok') this.options.counters.channelsDeleted += 1;
    if (answer.kind === 'ok' || RECREATE.has(reasonOf(answer))) return true;
    if (reasonOf(answer) === 'FeatureNotEnabled') this.turnOff();
    else this.options.logger.warn('apns: channel not deleted; the start-up sweep deletes it', { environment, ...answerFields(answer) });
    return false;
  }

  /**
   * Plans the channel's deletion for when the end's dismissal delay has passed, counted from
   * the end's time as its `dismissal-date` is (docs/contract/broadcast-channels.md#broadcast-channel-deletion);
   * then the stored id is forgotten, if it is still that one.
   */
  private deleteAfterDismissal(push: ActivityPush, environment: ApnsEnvironment, channelId: string): void {
    const { clock, builder } = this.options;
    const dismissedAt = dismissalDate(Math.floor(builder.activityPayload(push).at / 1000), push) * 1000;
    const planned = this.deletions.get(channelId);
    if (planned !== undefined) clock.clearTimeout(planned);
    // The timer keeps the activity's name only, not the push and its content.
    const { owner, slug } = push;
    const timer = clock.setTimeout(
      () => {
        this.deletions.delete(channelId);
        void this.deleteEnded(owner, slug, environment, channelId);
      },
      Math.max(0, dismissedAt - clock.now()),
    );
    this.deletions.set(channelId, timer);
  }

  private async deleteEnded(owner: string, slug: string, environment: ApnsEnvironment, channelId: string): Promise<void> {
    try {
      if (await this.deleteNow(environment, channelId))
        await this.options.registry.setActivityChannel(owner, slug, environment, null, { ifChannel: channelId });
    } catch (error) {
      this.options.logger.warn('apns: ended channel not forgotten', { owner, slug, environment, error: String(error) });
    }
  }

  /** Forgets `channelId` as the activity's channel, if it is still the stored one; true when it was. */
  private forget(push: ActivityPush, environment: ApnsEnvironment, channelId: string): Promise<boolean> {
    return this.options.registry.setActivityChannel(push.owner, push.slug, environment, null, { ifChannel: channelId });
  }

  /** A management request with the retry rules, before the hour a push would wait at most. */
  private manage<T>(send: (authorization: string) => Promise<ManageAnswer<T>>): Promise<ManageAnswer<T>> {
    return this.options.attempts.run(send, this.options.clock.now() + APNS_EXPIRATION_S * 1000);
  }

  /** docs/contract/broadcast-channels.md#broadcast-answers: `FeatureNotEnabled` turns broadcast off for the process, said once. */
  private turnOff(): void {
    if (this.off) return;
    this.off = true;
    this.options.logger.error('apns: broadcast is not enabled for this app (FeatureNotEnabled): broadcast is off until restart, per-token pushes carry on', {
      bundleId: this.options.bundleId,
    });
  }
}
