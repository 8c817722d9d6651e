/**
 * Paces the pushes being worked on (registry lookup, building, waiting for a stream,
 * sending): at most `limit` at once, at most `perTurn` started per turn of the event loop,
 * first come first served. How a fan-out is paced, as a whole: docs/decisions/0058-apns-pacing.md.
 *
 * A waiting push is one small entry (its arguments and its promise's settle functions, no
 * closure), in a queue that takes entries from its head without moving the others: a
 * fan-out keeps thousands of them waiting, and what stays live meanwhile is what young-
 * generation collections copy.
 */
export class Admission<A, B, R> {
  private active = 0;
  private budget: number;
  private scheduled = false;
  private readonly waiting = new Fifo<Waiting<A, B, R>>();

  /** `work(a, b, leave)` is what each admitted push runs (see `run`). */
  constructor(
    private readonly limit: number,
    private readonly perTurn: number,
    private readonly work: Work<A, B, R>,
  ) {
    this.budget = perTurn;
  }

  /**
   * Runs `work(a, b, leave)` once a slot is free, and settles as it does (with its value). `leave` gives
   * the slot up early (a push waiting to retry); it is given up at the latest when the
   * work settles. Calling `leave` more than once does nothing.
   */
  run(a: A, b: B): Promise<R> {
    if (this.waiting.size === 0 && this.active < this.limit && this.budget > 0) return this.start(a, b);
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ a, b, resolve, reject });
      this.nextTurn();
    });
  }

  /** Pushes holding a slot and pushes waiting for one. */
  load(): { working: number; queued: number } {
    return { working: this.active, queued: this.waiting.size };
  }

  private start(a: A, b: B): Promise<R> {
    this.active += 1;
    this.budget -= 1;
    this.nextTurn();
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.active -= 1;
      if (this.waiting.size > 0) this.nextTurn();
    };
    let working: Promise<R>;
    try {
      working = this.work(a, b, leave);
    } catch (error) {
      leave();
      return Promise.reject(error);
    }
    return working.then(
      (value) => {
        leave();
        return value;
      },
      (error: unknown) => {
        leave();
        throw error;
      },
    );
  }

  /** A new budget, and waiting pushes started, in the next turn of the event loop. */
  private nextTurn(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.budget = this.perTurn;
      while (this.waiting.size > 0 && this.active < this.limit && this.budget > 0) {
        const next = this.waiting.shift()!;
        this.start(next.a, next.b).then(next.resolve, next.reject);
      }
    });
  }
}

type Work<A, B, R> = (a: A, b: B, leave: () => void) => Promise<R>;

interface Waiting<A, B, R> {
  a: A;
  b: B;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}

/**
 * First in, first out, in chunks: `shift` never moves the entries behind the head
 * (`Array.prototype.shift` on a long array copies it, tens of microseconds per call).
 */
export class Fifo<T> {
  private head: T[] = [];
  private headIndex = 0;
  private tail: T[] = [];
  size = 0;

  push(item: T): void {
    this.tail.push(item);
    this.size += 1;
  }

  shift(): T | undefined {
    if (this.headIndex === this.head.length) {
      if (this.tail.length === 0) return undefined;
      this.head = this.tail;
      this.headIndex = 0;
      this.tail = [];
    }
    const item = this.head[this.headIndex]!;
    this.head[this.headIndex] = undefined as T; // not kept alive by the queue once taken
    this.headIndex += 1;
    this.size -= 1;
    return item;
  }
}
