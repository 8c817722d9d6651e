import type { Connections } from './connection-pool.js';
import type { PushCounters } from './counters.js';
import type { PushCredential } from './credential.js';
import { PushDelivery, type PushJob, type DeliveryResult, type DeliveryRules } from './delivery.js';
import { LatestWins, type PushTicket } from './latest-wins.js';
import { Superseding } from './superseding.js';
import type { PushBacklog, PushTransportSettings } from './transport-setup.js';

/** What a transport puts its pushes' way together with: its service's pieces, and how it builds a job. */
export interface PushPipelineSetup<T extends PushTicket, J extends PushJob> {
  connections: Connections<J>;
  credential: PushCredential;
  rules: DeliveryRules<J>;
  /** Counted into as pushes go (the transport's own counters). */
  counters: PushCounters;
  settings: PushTransportSettings;
  /** Looks the ticket's token up and builds its job (with `leave`, its slot's): null when it has nowhere to go. */
  build(ticket: T, leave: () => void): Promise<J | null>;
}

/** A transport's pushes, from hand-over to outcome. */
export interface PushPipeline<T extends PushTicket> {
  /** Hands a push over (the newest of its key from now on); resolves with what came of it. */
  handOver(ticket: T): Promise<DeliveryResult>;
  backlog(): PushBacklog;
  /** Drops the pushes waiting to retry and every push to come, and closes the connections. */
  close(): Promise<void>;
}

/** Pushes started per turn of the event loop at most (a fan-out's pacing: docs/decisions/0058-apns-pacing.md). */
const PUSHES_PER_TURN = 8;

/**
 * The way of a transport's pushes, the same for every service: latest wins and pacing
 * (`LatestWins`), then the delivery loop (`PushDelivery`) over the transport's
 * connections. Twice the streams are at work, a few started per turn
 * (docs/decisions/0058-apns-pacing.md); a newer push replaces an older one of its device
 * and activity or widget wherever it waits (docs/contract/apns.md#apns-latest-wins,
 * docs/contract/android-fcm.md#fcm-latest-wins, docs/decisions/0111-apns-latest-wins.md).
 */
export function createPushPipeline<T extends PushTicket, J extends PushJob>(setup: PushPipelineSetup<T, J>): PushPipeline<T> {
  const { connections, counters, settings } = setup;
  const { clock, logger, random, retryBaseMs } = settings;
  const superseding = new Superseding<J>();
  const delivery = new PushDelivery<J>({
    connections,
    credential: setup.credential,
    superseding,
    counters,
    rules: setup.rules,
    retryBaseMs,
    clock,
    logger,
    random,
  });
  const pushes = new LatestWins<T, J, DeliveryResult>({
    limit: 2 * settings.maxConcurrentStreams,
    perTurn: PUSHES_PER_TURN,
    superseding,
    build: setup.build,
    send: (job) => delivery.send(job),
    giveWay: (older) => delivery.giveWay(older),
    closed: () => delivery.closed,
    dropClosed: () => delivery.dropClosed(),
    superseded() {
      counters.superseded += 1;
      return 'superseded';
    },
    skipped() {
      counters.skipped += 1;
      return 'skipped';
    },
  });
  return {
    handOver: (ticket) => pushes.handOver(ticket),
    backlog() {
      const { working, queued, keys } = pushes.load();
      return { queued, working, retrying: delivery.retrying, keys };
    },
    async close() {
      delivery.close();
      await connections.close();
    },
  };
}
