import { randomUUID } from 'node:crypto';
import type { TilecastContext } from '../context.js';
import { fail } from '../errors.js';
import type { CoreRequest } from '../http/types.js';
import { STREAM_SLOT_TTL_MS, type StreamSlotKind } from './stream-slots.js';

/** A slot taken for a stream that is about to run. */
export interface SlotClaim {
  readonly slotId: string;
  /** The stream runs: from now on its own end releases the slot. False if the client left before (the slot is given back). */
  start(): boolean;
  /** The stream will not run (a later step failed): gives the slot back. */
  abandon(): void;
}

/**
 * Takes a slot of `kind` for `ownerId`, or refuses with the kind's refusal (`429`). A store
 * outage rejects with the store's `StorageUnavailableError` (the handler answers the outage
 * stream). A client that leaves before its stream runs gives the slot back; once the stream
 * runs, the stream releases it when it ends (`releaseStreamSlot`).
 */
export async function claimStreamSlot(context: TilecastContext, kind: StreamSlotKind, ownerId: string, request: CoreRequest): Promise<SlotClaim> {
  const { storage, clock } = context;
  const slotId = randomUUID();
  const acquired = await kind.acquire(storage, ownerId, slotId, { max: kind.max, now: clock.now(), ttlMs: STREAM_SLOT_TTL_MS });
  if (!acquired) fail(kind.refusal);

  let running = false;
  let released = false;
  const left = () => {
    if (running || released) return;
    released = true;
    releaseStreamSlot(context, kind, ownerId, slotId);
  };
  // Only the listener is kept, not the request: a stream may live for 15 minutes.
  if (request.onClose) request.onClose(left);
  else request.signal?.addEventListener('abort', left, { once: true });
  return {
    slotId,
    start() {
      running = true;
      return !released;
    },
    abandon: left,
  };
}

/** Gives a slot back; a failure only logs (the lease expires by itself). */
export function releaseStreamSlot(context: TilecastContext, kind: StreamSlotKind, ownerId: string, slotId: string): void {
  kind.release(context.storage, ownerId, slotId).catch((error: unknown) => context.logger.warn('stream lease release failed', { error: String(error) }));
}
