import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';
import type { Storage } from '../storage/storage.js';

/** An event-stream slot is held for a while and renewed while the stream lives, so a crashed instance's slots free themselves. */
export const EVENT_STREAM_SLOT_TTL_MS = 60_000;
export const EVENT_STREAM_SLOT_RENEW_MS = 20_000;

/** A slot to keep renewed: the stream itself holds these (no record or closure per stream). */
export interface HeldSlot {
  readonly accountId: string;
  readonly slotId: string;
  /** The slot could not be renewed: another instance may take the slot now. */
  slotLost(): void;
}

/**
 * Renews the event-stream slots of one instance with one timer for all of them (not one per
 * stream: an instance may hold ten thousand). A slot whose renewal fails is reported
 * lost, and its stream ends.
 */
export interface EventStreamSlots {
  /** Keeps the slot renewed until it is dropped. */
  keep(slot: HeldSlot): void;
  drop(slot: HeldSlot): void;
  close(): void;
}

export function createEventStreamSlots(storage: Storage, clock: Clock, logger: Logger): EventStreamSlots {
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
    const renewals = slots.map((slot) =>
      storage.renewEventStreamSlot(slot.accountId, slot.slotId, { now, ttlMs: EVENT_STREAM_SLOT_TTL_MS }).catch(renewalFailed),
    );
    return Promise.all(renewals).then((kept) => {
      for (let i = 0; i < slots.length; i++) if (!kept[i] && held.delete(slots[i]!)) slots[i]!.slotLost();
      schedule();
    });
  };
  const schedule = () => {
    if (scheduled || held.size === 0) return;
    scheduled = true;
    timer = clock.setTimeout(() => void renewAll(), EVENT_STREAM_SLOT_RENEW_MS);
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
