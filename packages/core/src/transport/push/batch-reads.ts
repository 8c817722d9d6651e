/** Reads the records of `ids` at once: the map holds those found, the others are absent. */
export type BatchRead<V> = (ids: readonly string[]) => Promise<ReadonlyMap<string, V>>;

/** The ids at most one batch read asks for, unless `BatchReads` is given another cap. */
export const BATCH_READ_MAX = 500;

interface Waiter<V> {
  resolve: (value: V | undefined) => void;
  reject: (error: unknown) => void;
}

/** The lookups of one batch gathered so far, by id, and the read they go to. */
interface Batch<V> {
  read: BatchRead<V>;
  waiting: Map<string, Waiter<V>[]>;
}

/**
 * Gathers the lookups a transport makes in one synchronous stretch (a turn's admitted pushes,
 * docs/decisions/0058-apns-pacing.md) into one batch read per group, sent once that stretch
 * ends (a microtask), instead of one store round trip per device. Each caller is answered
 * with its own id's record, `undefined` when the read did not find it; a read that fails
 * rejects every caller waiting on it.
 *
 * Nothing is kept across batches: a lookup made after a batch was sent goes to a new read,
 * so a token removed meanwhile (an APNs `410`) is never answered from an older read.
 *
 * A group is one kind of read with its arguments (a key chosen by the caller, e.g. an
 * activity's account and slug): lookups of different groups never share a read. A group
 * holding `max` ids is sent at once, and later lookups start its next batch. Callers asking
 * for the same id in one batch share its record: they must not change it.
 */
export class BatchReads<V> {
  private readonly pending = new Map<string, Batch<V>>();
  private scheduled = false;

  constructor(private readonly max = BATCH_READ_MAX) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`BatchReads: max must be a positive integer, got ${max}`);
  }

  /**
   * The record of `id` in group `group`, read with `read` together with the other lookups of
   * the group made before the current synchronous stretch ends. `read` is the one of the
   * group's first lookup in a batch: every lookup of a group passes the same read.
   */
  lookup(group: string, id: string, read: BatchRead<V>): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      let batch = this.pending.get(group);
      if (batch === undefined) {
        batch = { read, waiting: new Map() };
        this.pending.set(group, batch);
      }
      const waiters = batch.waiting.get(id);
      if (waiters === undefined) batch.waiting.set(id, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (batch.waiting.size >= this.max) {
        this.pending.delete(group);
        send(batch);
      } else if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batches = [...this.pending.values()];
    this.pending.clear();
    for (const batch of batches) send(batch);
  }
}

/** Sends one batch's read and answers each of its callers. */
function send<V>(batch: Batch<V>): void {
  const { read, waiting } = batch;
  let answer: Promise<ReadonlyMap<string, V>>;
  try {
    answer = read([...waiting.keys()]);
  } catch (error) {
    answer = Promise.reject(error); // a read that throws at once fails its batch as a rejection would
  }
  answer.then(
    (found) => {
      for (const [id, waiters] of waiting) {
        const value = found.get(id);
        for (const waiter of waiters) waiter.resolve(value);
      }
    },
    (error: unknown) => {
      for (const waiters of waiting.values()) for (const waiter of waiters) waiter.reject(error);
    },
  );
}
