import type { ActivityBroadcast, BroadcastResult, Clock, Logger } from '@tilecast/core';
import { ConnectionPool } from '@tilecast/core/push';
import { Attempts } from './attempts.js';
import { Broadcaster } from './broadcast.js';
import { broadcastFormat } from './broadcast-request.js';
import { ChannelManagement } from './channel-management.js';
import type { ApnsCounters } from './counters.js';
import { type ChannelSweepReport, sweepChannels } from './orphan-sweep.js';
import type { PushBuilder } from './payloads.js';
import type { ProviderToken } from './provider-token.js';
import type { ApnsEnvironment, ApnsRegistry } from './registry.js';

export interface BroadcastingOptions {
  bundleId: string;
  registry: ApnsRegistry;
  /** Where broadcasts go: the push origin of an environment. */
  pushOriginOf: (environment: ApnsEnvironment) => string;
  /** Where channel management goes: the management origin of an environment. */
  manageOriginOf: (environment: ApnsEnvironment) => string;
  ca?: string | Buffer | Array<string | Buffer>;
  provider: ProviderToken;
  builder: PushBuilder;
  updatePriority: 5 | 10;
  sweepLimit: number;
  maxConcurrentStreams: number;
  requestTimeoutMs: number;
  retryBaseMs: number;
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
export function createBroadcasting(options: BroadcastingOptions): Broadcasting {
  const { clock, logger, counters, registry } = options;
  let closed = false;
  const attempts = new Attempts({ provider: options.provider, counters, retryBaseMs: options.retryBaseMs, clock, random: options.random });
  const management = new ChannelManagement({
    bundleId: options.bundleId,
    originOf: options.manageOriginOf,
    ca: options.ca,
    requestTimeoutMs: options.requestTimeoutMs,
    clock,
  });
  const connections = new ConnectionPool({
    format: broadcastFormat(options.bundleId),
    ca: options.ca,
    maxConcurrentStreams: options.maxConcurrentStreams,
    requestTimeoutMs: options.requestTimeoutMs,
    clock,
    random: options.random,
    onReconnect: (origin) => {
      counters.reconnects += 1;
      logger.info('apns: reconnecting', { origin });
    },
  });
  const broadcaster = new Broadcaster({
    bundleId: options.bundleId,
    registry,
    management,
    connections,
    originOf: options.pushOriginOf,
    attempts,
    builder: options.builder,
    updatePriority: options.updatePriority,
    counters,
    clock,
    logger,
  });
  return {
    broadcast: (broadcast) => broadcaster.broadcast(broadcast),
    async sweep() {
      try {
        return await sweepChannels({
          registry,
          management,
          originOf: options.manageOriginOf,
          attempts,
          limit: options.sweepLimit,
          counters,
          clock,
          logger,
          closed: () => closed,
        });
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
