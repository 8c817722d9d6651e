import type { Clock } from '../clock.js';
import type { ServiceError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { SlotAcquisition, SlotRenewal, Storage } from '../storage/storage.js';

/**
 * A stream slot (`GET /events` per account, `GET /device/stream` per device) is held for a
 * while and renewed while the stream lives, so a crashed instance's slots free themselves.
 */
export const STREAM_SLOT_TTL_MS = 60_000;
export const STREAM_SLOT_RENEW_MS = 20_000;

/** One kind of capped stream: how many an owner may hold, the refusal beyond, and the store's calls for its slots. */
export interface StreamSlotKind {
  readonly max: number;
  readonly refusal: ServiceError;
  acquire(storage: Storage, ownerId: string, slotId: string, terms: SlotAcquisition): Promise<boolean>;
  renew(storage: Storage, ownerId: string, slotId: string, terms: SlotRenewal): Promise<boolean>;
  release(storage: Storage, ownerId: string, slotId: string): Promise<void>;
}

/** A slot to keep renewed: the stream itself holds these (no record or closure per stream). */
export interface HeldSlot {
  readonly slotKind: StreamSlotKind;
  /** The account (event streams) or device (device streams) the slot counts against. */
  readonly slotOwnerId: string;
  readonly slotId: string;
  /** The slot could not be renewed: another instance may take the slot now. */
  slotLost(): void;
}

/**
 * Renews the stream slots of one instance, of every kind, with one timer for all of them
 * (not one per stream: an instance may hold ten thousand). A slot whose renewal fails is
 * reported lost, and its stream ends.
 */
export interface StreamSlots {
  /** Keeps the slot renewed until it is dropped. */
  keep(slot: HeldSlot): void;
  drop(slot: HeldSlot): void;
  close(): void;
}

export function createStreamSlots(storage: Storage, clock: Clock, logger: Logger): StreamSlots {
  const held = new Set<HeldSlot>();
  let timer: unknown;
  let scheduled = false;

  const renewalFailed = (error: unknown): false => {
    logger.warn('stream lease renewal failed', { error: String(error) });
    return false;
  };
  // All renewals at once, then one pass over their answers: a promise per slot, but no
  // async function or closure per slot every 20 s.
  const renewAll = (): Promise<void> => {
    scheduled = false;
    const now = clock.now();
    const slots = [...held];
    const renewals = slots.map((slot) => slot.slotKind.renew(storage, slot.slotOwnerId, slot.slotId, { now, ttlMs: STREAM_SLOT_TTL_MS }).catch(renewalFailed));
    return Promise.all(renewals).then((kept) => {
      for (let i = 0; i < slots.length; i++) if (!kept[i] && held.delete(slots[i]!)) slots[i]!.slotLost();
      schedule();
    });
  };
  const schedule = () => {
    if (scheduled || held.size === 0) return;
    scheduled = true;
    timer = clock.setTimeout(() => void renewAll(), STREAM_SLOT_RENEW_MS);
  };

  return {
    keep(slot) {
      held.add(slot);
      schedule();
    },
    drop(slot) {
      held.delete(slot);
    },
    close() {
      held.clear();
      clock.clearTimeout(timer);
      scheduled = false;
    },
  };
}
