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
 * Gathers a transport's lookups of devices into batch reads, instead of one store round
 * trip per device. The lookups made in one synchronous stretch (the pushes admitted in a
 * turn: docs/decisions/0058-apns-pacing.md) go out together once it ends (a microtask); while
 * a group's read is out, its later lookups wait and go out together as it settles. So a
 * batch grows with the store's round trip (about the pushes admitted meanwhile), and each
 * lookup waits for at most one read besides its own. Each caller is answered with its own
 * id's record, `undefined` when the read did not find it; a read that fails rejects every
 * caller waiting on it, and the next batch reads again.
 *
 * Nothing is kept: every lookup is answered by a read sent after it was made, so a token
 * removed before a lookup (an APNs `410`) is never answered from an older read.
 *
 * A group is one kind of read with its arguments (a key chosen by the caller, e.g. an
 * activity's account and slug): lookups of different groups never share a read, nor wait
 * for each other's. A group holding `max` ids is sent at once, whatever is out, and later
 * lookups start its next batch. Callers asking for the same id in one batch share its
 * record: they must not change it.
 */
export class BatchReads<V> {
  /** The next batch of each group, gathering lookups. */
  private readonly pending = new Map<string, Batch<V>>();
  /** The groups with a read out: their next batch goes when it settles. */
  private readonly out = new Set<string>();
  private scheduled = false;

  constructor(private readonly max = BATCH_READ_MAX) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`BatchReads: max must be a positive integer, got ${max}`);
  }

  /**
   * The record of `id` in group `group`, read with `read` together with the group's other
   * lookups made meanwhile. `read` is the one of the group's first lookup in a batch: every
   * lookup of a group passes the same read.
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
        void send(batch);
      } else if (!this.scheduled) {
        this.scheduled = true;
        queueMicrotask(() => this.flush());
      }
    });
  }

  /** The end of a synchronous stretch: every group without a read out sends its batch. */
  private flush(): void {
    this.scheduled = false;
    for (const [group, batch] of this.pending) {
      if (this.out.has(group)) continue; // it goes when the read out settles, with what comes meanwhile
      this.pending.delete(group);
      this.start(group, batch);
    }
  }

  private start(group: string, batch: Batch<V>): void {
    this.out.add(group);
    void send(batch).then(() => {
      this.out.delete(group);
      const next = this.pending.get(group);
      if (next === undefined) return;
      this.pending.delete(group);
      this.start(group, next);
    });
  }
}

/** Sends one batch's read and answers each of its callers; settles (never rejects) once they are. */
function send<V>(batch: Batch<V>): Promise<void> {
  const { read, waiting } = batch;
  let answer: Promise<ReadonlyMap<string, V>>;
  try {
    answer = read([...waiting.keys()]);
  } catch (error) {
    answer = Promise.reject(error); // a read that throws at once fails its batch as a rejection would
  }
  return answer.then(
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
