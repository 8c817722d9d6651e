import type { KeyObject } from 'node:crypto';
import type { ActivityBroadcast, ActivityPush, BroadcastResult, DeviceTransport, WidgetPush } from '@tilecast/core';
import {
  createPushPipeline,
  pushConnections,
  pushKey,
  pushTransportSettings,
  workerScriptPath,
  type PushBacklog,
  type PushTransportOptions,
} from '@tilecast/core/push';
import { createBroadcasting } from './broadcasting.js';
import { type ApnsCounters, zeroCounters } from './counters.js';
import { apnsDeliveryRules, type ApnsResult } from './delivery.js';
import type { Job, Ticket } from './job.js';
import type { ChannelSweepReport } from './orphan-sweep.js';
import { PushBuilder } from './payloads.js';
import { ProviderToken, providerCredential, readSigningKey } from './provider-token.js';
import type { ApnsEnvironment, ApnsRegistry } from './registry.js';
import { APNS_FORMAT } from './request.js';

export type { ApnsCounters } from './counters.js';
export type { ChannelSweepReport } from './orphan-sweep.js';
export { APNS_MANAGE_ORIGINS } from './channel-management.js';
export { APNS_EXPIRATION_S, MAX_RETRIES } from './delivery.js';

export const APNS_ORIGINS: Readonly<Record<ApnsEnvironment, string>> = {
  production: 'https://api.push.apple.com',
  sandbox: 'https://api.sandbox.push.apple.com',
};

export interface ApnsTransportOptions extends PushTransportOptions {
  /** The Apple Developer team id (the JWT's `iss`). */
  teamId: string;
  /** The id of the signing key (the JWT's `kid`). */
  keyId: string;
  /** The `.p8` signing key: its PEM text, or a KeyObject. */
  signingKey: string | KeyObject;
  /** The app's bundle id; topics are `<bundleId>.push-type.liveactivity|widgets`. */
  bundleId: string;
  /** Where the devices' APNs tokens are kept (the Tilecast store implements it). */
  registry: ApnsRegistry;
  /** Replaces both Apple origins (a test double on 127.0.0.1). */
  origin?: string;
  /**
   * Replaces both channel management origins
   * (docs/contract/broadcast-channels.md#broadcast-management-hosts): a test double. Without
   * it, management goes to `origin` when that is set (a test setup never reaches Apple),
   * else to Apple's management hosts.
   */
  manageOrigin?: string;
  /**
   * Sweeps the app's broadcast channels in the background as the transport is made
   * (docs/contract/broadcast-channels.md#broadcast-orphan-cleanup); default true.
   * `sweepChannels()` runs one whenever called.
   */
  channelSweep?: boolean;
  /** Channels a sweep deletes at most (default 1,000); the rest waits for the next one. */
  channelSweepLimit?: number;
  /** The Live Activity's `attributes-type` for start pushes. */
  attributesType?: string;
  /** `apns-priority` of update pushes: 10 (default) or 5 to spare the device's budget. */
  updatePriority?: 5 | 10;
}

/** What `ApnsTransport.backlog()` answers. */
export type ApnsBacklog = PushBacklog;

export interface ApnsTransport extends DeviceTransport {
  /**
   * Each push resolves with what came of it: `delivered` (`200`), `token_removed`,
   * `refused` (a `4xx` other than a token's, an expired provider token not renewed),
   * `dropped` (retries used up, expired, the transport closed), `skipped` (no token),
   * `superseded` (a newer push for the same device and activity or widget came before it
   * was sent: docs/contract/apns.md#apns-latest-wins).
   */
  pushActivity(deviceId: string, push: ActivityPush): Promise<ApnsResult>;
  pushWidget(deviceId: string, push: WidgetPush): Promise<ApnsResult>;
  /**
   * A broadcast activity's channels at a start, its broadcast for an update or an end
   * (docs/contract/broadcast-channels.md). Never rejects.
   */
  broadcastActivity(broadcast: ActivityBroadcast): Promise<BroadcastResult>;
  /**
   * Lists the app's channels and deletes those no stored activity holds, and those of
   * activities ended and dismissed (docs/contract/broadcast-channels.md#broadcast-orphan-cleanup).
   * Never rejects. The transport starts one as it is made unless `channelSweep` is false.
   */
  sweepChannels(): Promise<ChannelSweepReport>;
  counters(): ApnsCounters;
  /** Streams open and requests waiting, per origin. */
  load(): Record<string, { active: number; waiting: number }>;
  /**
   * The pushes the transport holds: `queued` for admission, `working`, `retrying` (waiting
   * to retry), and `keys`, the (device, activity or widget) pairs they are for. Newer
   * pushes replace older ones of the same pair, so none of these grows with the number of
   * updates, only with the pairs (docs/contract/apns.md#apns-latest-wins).
   */
  backlog(): ApnsBacklog;
  /** Closes the connections and drops pushes waiting for a retry. */
  close(): Promise<void>;
}

/**
 * The transport: each push is stamped as the newest of its device and activity or widget,
 * paced, looked up in the registry (`skipped` without a token), built (payloads.ts) and
 * sent (delivery.ts) over connections on a worker or this thread, with the pieces of
 * `@tilecast/core/push` (shared with the FCM transport); a newer push replaces an older
 * one still waiting anywhere on that way (`LatestWins`).
 */
export function createApnsTransport(options: ApnsTransportOptions): ApnsTransport {
  const { teamId, keyId, bundleId, registry } = options;
  for (const [name, value] of Object.entries({ teamId, keyId, bundleId })) {
    if (typeof value !== 'string' || value.trim() === '') throw new Error(`transport-apns: ${name} is required`);
  }
  const key = readSigningKey(options.signingKey);
  const settings = pushTransportSettings(options);
  const { clock, logger, random, maxConcurrentStreams } = settings;
  const provider = new ProviderToken(key, keyId, teamId, clock);
  const counters = zeroCounters();
  const credential = providerCredential(provider, counters);
  const workerScript = () => workerScriptPath(import.meta.url, 'connection-worker');
  const connections = pushConnections({ name: 'apns', format: APNS_FORMAT, workerScript, settings, counters });
  const pushOriginOf = (environment: ApnsEnvironment) => options.origin ?? APNS_ORIGINS[environment];
  const builder = new PushBuilder({
    bundleId,
    attributesType: options.attributesType ?? 'TilecastActivityAttributes',
    updatePriority: options.updatePriority ?? 10,
    clock,
  });
  const broadcasting = createBroadcasting(options, { credential, builder, pushOriginOf, maxConcurrentStreams, counters, clock, logger, random });

  /**
   * Looks the ticket's token up and builds its job: null when it has nowhere to go. A
   * widget's or an activity target's lookup is a promise chain rather than an async
   * function (one closure per push, no async frame): a fan-out's pushes go that way.
   */
  const jobOf = (ticket: Ticket, leave: () => void): Promise<Job | null> => {
    try {
      if (ticket.payload !== null && ticket.push.phase !== 'start' && registry.activityTargetOf !== undefined) {
        // An update or an end: the registration and the activity's token in one lookup.
        return registry
          .activityTargetOf(ticket.deviceId, ticket.push.owner, ticket.push.slug)
          .then((target) =>
            target === null || target.token === null ? null : builder.activityJob(ticket, target.token, target.registrations.environment, leave),
          );
      }
      if (ticket.payload === null) {
        return registry
          .registrationsOf(ticket.deviceId)
          .then((registrations) =>
            registrations === null || registrations.widgets === null
              ? null
              : builder.widgetJob(ticket, registrations.widgets, registrations.environment, leave),
          );
      }
    } catch (error) {
      // As an async function would: a lookup that throws rejects.
      return Promise.reject(error);
    }
    return activityJobOf(ticket, leave);
  };

  /** An activity's job without `activityTargetOf`: its registrations, then (but for a start) its token. */
  const activityJobOf = async (ticket: Ticket, leave: () => void): Promise<Job | null> => {
    const registrations = await registry.registrationsOf(ticket.deviceId);
    // (`payload` is never null here, jobOf sent widgets elsewhere: the check narrows the ticket to an activity's.)
    if (registrations === null || ticket.payload === null) return null;
    const { deviceId, push } = ticket;
    const { environment } = registrations;
    if (push.phase === 'start') {
      // docs/contract/broadcast-channels.md#broadcast-start: a device that follows channels is told its environment's.
      const channelId = registrations.channels ? (push.channels?.[environment] ?? null) : null;
      return registrations.pushToStart === null ? null : builder.activityJob(ticket, registrations.pushToStart, environment, leave, channelId);
    }
    const token = await registry.activityTokenOf(deviceId, push.owner, push.slug);
    return token === null ? null : builder.activityJob(ticket, token, environment, leave);
  };

  const pushes = createPushPipeline<Ticket, Job>({
    connections,
    credential,
    rules: apnsDeliveryRules({ originOf: pushOriginOf, registry, logger }),
    counters,
    settings,
    build: jobOf,
  });

  const activityTicket = (deviceId: string, push: ActivityPush): Ticket => {
    const payload = builder.activityPayload(push);
    return { deviceId, push, payload, at: payload.at, key: pushKey(deviceId, push), seq: 0 };
  };

  if (options.channelSweep ?? true) void broadcasting.sweep();

  return {
    name: 'apns',
    pushActivity: (deviceId, push: ActivityPush) => pushes.handOver(activityTicket(deviceId, push)),
    pushWidget: (deviceId, push: WidgetPush) => pushes.handOver({ deviceId, push, payload: null, at: null, key: pushKey(deviceId, push), seq: 0 }),
    broadcastActivity: (broadcast) => broadcasting.broadcast(broadcast),
    sweepChannels: () => broadcasting.sweep(),

    counters: () => ({ ...counters, providerTokens: provider.issued }),
    load: () => connections.load(),
    backlog: () => pushes.backlog(),
    async close() {
      await Promise.all([pushes.close(), broadcasting.close()]);
    },
  };
}
