import type { ActivityBroadcast, BroadcastResult, Clock, Logger } from '@tilecast/core';
import { ConnectionPool } from '@tilecast/core/push';
import { Attempts } from './attempts.js';
import { Broadcaster } from './broadcast.js';
import { broadcastFormat } from './broadcast-request.js';
import { APNS_MANAGE_ORIGINS, ChannelManagement } from './channel-management.js';
import type { ApnsCounters } from './counters.js';
import { type ChannelSweepReport, sweepChannels } from './orphan-sweep.js';
import type { PushBuilder } from './payloads.js';
import type { ProviderCredential } from './provider-token.js';
import type { ApnsEnvironment } from './registry.js';
import type { ApnsTransportOptions } from './transport.js';

/** What the transport made that its broadcast side shares. */
export interface BroadcastingContext {
  /** The provider token (`providerCredential`), shared with the per-token pushes. */
  credential: ProviderCredential;
  builder: PushBuilder;
  /** Where broadcasts go: the push origin of an environment. */
  pushOriginOf: (environment: ApnsEnvironment) => string;
  maxConcurrentStreams: number;
  counters: ApnsCounters;
  clock: Clock;
  logger: Logger;
  random: () => number;
}

/** The broadcast side of the transport (docs/contract/broadcast-channels.md), as `createApnsTransport` uses it. */
export interface Broadcasting {
  broadcast(broadcast: ActivityBroadcast): Promise<BroadcastResult>;
  /** Never rejects: a failure is logged and answered as an empty report. */
  sweep(): Promise<ChannelSweepReport>;
  close(): Promise<void>;
}

/**
 * Broadcasts go through a ConnectionPool of their own on this thread (one request per
 * update and environment: the worker is for fan-outs); channel management through its own
 * small client (channel-management.ts says why). Both share the provider token and the
 * counters of the per-token pushes.
 */
export function createBroadcasting(options: ApnsTransportOptions, context: BroadcastingContext): Broadcasting {
  const { bundleId, registry, ca } = options;
  const { clock, logger, counters, random } = context;
  const requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
  // docs/contract/broadcast-channels.md#broadcast-management-hosts; a test setup (an `origin`) never reaches Apple's.
  const manageOriginOf = (environment: ApnsEnvironment) => options.manageOrigin ?? options.origin ?? APNS_MANAGE_ORIGINS[environment];
  const limit = options.channelSweepLimit ?? 1000;
  let closed = false;
  const attempts = new Attempts({ credential: context.credential, counters, retryBaseMs: options.retryBaseMs ?? 1000, clock, random });
  const management = new ChannelManagement({ bundleId, originOf: manageOriginOf, ca, requestTimeoutMs, clock });
  const connections = new ConnectionPool({
    format: broadcastFormat(bundleId),
    ca,
    maxConcurrentStreams: context.maxConcurrentStreams,
    requestTimeoutMs,
    clock,
    random,
    onReconnect: (origin) => {
      counters.reconnects += 1;
      logger.info('apns: reconnecting', { origin });
    },
  });
  const broadcaster = new Broadcaster({
    bundleId,
    registry,
    management,
    connections,
    originOf: context.pushOriginOf,
    attempts,
    builder: context.builder,
    updatePriority: options.updatePriority ?? 10,
    counters,
    clock,
    logger,
  });
  return {
    broadcast: (broadcast) => broadcaster.broadcast(broadcast),
    async sweep() {
      try {
        return await sweepChannels({ registry, management, originOf: manageOriginOf, attempts, limit, counters, clock, logger, closed: () => closed });
      } catch (error) {
        if (!closed) logger.warn('apns: channel sweep failed', { error: String(error) });
        return { listed: 0, orphans: 0, ended: 0, deleted: 0, left: 0 };
      }
    },
    async close() {
      closed = true;
      broadcaster.close();
      attempts.close();
      management.close();
      await connections.close();
    },
  };
}
