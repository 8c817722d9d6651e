import { Fifo } from './fifo.js';

/**
 * Paces the pushes being worked on (registry lookup, building, waiting for a stream,
 * sending): at most `limit` at once, at most `perTurn` started per turn of the event loop,
 * first come first served. How a fan-out is paced, as a whole: docs/decisions/0058-apns-pacing.md.
 *
 * Latest wins (docs/contract/apns.md#apns-latest-wins, the same for every push transport):
 * a push handed over while an older one of the same key waits here takes that one's place
 * in the queue, and the older one settles at once with `replaced()`. The queue so holds at
 * most one push per key (device and activity or widget), however many updates come while
 * the push service is slow. Why, and the other places a push waits:
 * docs/decisions/0111-apns-latest-wins.md.
 *
 * A waiting push is one small entry (its item and its promise's settle functions, no
 * closure), in a queue that takes entries from its head without moving the others.
 */
export class Admission<T extends { key: string }, R> {
  /** Pushes holding a slot, and pushes at work that went ahead (they hold none). */
  private active = 0;
  private activeAhead = 0;
  private budget: number;
  private scheduled = false;
  /** Pushes waiting for a slot, and pushes `ahead` (they need none), in arrival order. */
  private readonly waiting = new Fifo<Waiting<T, R>>();
  private readonly ahead = new Fifo<Waiting<T, R>>();
  /** Every waiting entry, by its item's key. */
  private readonly byKey = new Map<string, Waiting<T, R>>();

  /**
   * `work(item, leave)` is what each admitted push runs (see `run`); `replaced()` is what a
   * waiting push whose place a newer one took settles with. `settled(item)`, when given, is
   * called as an admitted item's work settles (or throws), just before its slot is given up:
   * what the caller does at the end of every push rides on the callbacks Admission makes
   * anyway, instead of another promise and two more closures per push.
   */
  constructor(
    private readonly limit: number,
    private readonly perTurn: number,
    private readonly work: AdmissionWork<T, R>,
    private readonly replaced: () => R,
    private readonly settled?: (item: T) => void,
  ) {
    this.budget = perTurn;
  }

  /**
   * Runs `work(item, leave)` once a slot is free, and settles as it does (with its value),
   * unless a newer item of the same key takes its place first. `leave` gives the slot up
   * early (a push waiting to retry); it is given up at the latest when the work settles.
   * Calling `leave` more than once does nothing. An item `ahead` takes no slot and goes
   * before the others: it only waits for the turn's budget (pacing, not admission).
   */
  run(item: T, ahead = false): Promise<R> {
    const queued = this.byKey.size === 0 ? undefined : this.byKey.get(item.key);
    if (queued === undefined && this.budget > 0 && (ahead ? this.ahead.size === 0 : this.byKey.size === 0 && this.active < this.limit)) {
      return this.start(item, ahead);
    }
    return new Promise<R>((resolve, reject) => {
      if (queued !== undefined) {
        // The newer item takes the older one's place (and its lane); the older one is done.
        const older = queued.resolve;
        queued.item = item;
        queued.resolve = resolve;
        queued.reject = reject;
        older(this.replaced());
        return;
      }
      const entry: Waiting<T, R> = { item, ahead, resolve, reject };
      (ahead ? this.ahead : this.waiting).push(entry);
      this.byKey.set(item.key, entry);
      this.nextTurn();
    });
  }

  /** Pushes at work (with a slot or gone ahead) until they settle or leave, and pushes waiting (one per key at most). */
  load(): { working: number; queued: number } {
    return { working: this.active + this.activeAhead, queued: this.byKey.size };
  }

  private start(item: T, ahead: boolean): Promise<R> {
    return new Promise<R>((resolve, reject) => this.startWaiting({ item, ahead, resolve, reject }));
  }

  /**
   * Starts `item`'s work, which settles the promise `run` gave it directly, rather than
   * through another promise chained to it (one promise and a turn of the microtask queue
   * less per push; most of a fan-out's pushes wait).
   */
  private startWaiting({ item, ahead, resolve, reject }: Waiting<T, R>): void {
    const leave = this.enter(ahead);
    let working: Promise<R>;
    try {
      working = this.work(item, leave);
    } catch (error) {
      this.settled?.(item);
      leave();
      reject(error);
      return;
    }
    working.then(
      (value) => {
        this.settled?.(item);
        leave();
        resolve(value);
      },
      (error: unknown) => {
        this.settled?.(item);
        leave();
        reject(error);
      },
    );
  }

  /** A push starts (with a slot, or ahead without one): what gives its slot up, once. */
  private enter(ahead: boolean): () => void {
    if (ahead) this.activeAhead += 1;
    else this.active += 1;
    this.budget -= 1;
    this.nextTurn();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      if (ahead) return void (this.activeAhead -= 1); // it held no slot: nothing to hand on
      this.active -= 1;
      if (this.byKey.size > 0) this.nextTurn();
    };
  }

  /** A new budget, and waiting pushes started (those ahead first), in the next turn of the event loop. */
  private nextTurn(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.budget = this.perTurn;
      while (this.budget > 0) {
        const next = this.ahead.size > 0 ? this.ahead.shift() : this.waiting.size > 0 && this.active < this.limit ? this.waiting.shift() : undefined;
        if (next === undefined) break;
        this.byKey.delete(next.item.key);
        this.startWaiting(next);
      }
    });
  }
}

/** What an admitted push runs: `leave` gives its slot up early (see `Admission.run`). */
export type AdmissionWork<T, R> = (item: T, leave: () => void) => Promise<R>;

interface Waiting<T, R> {
  item: T;
  ahead: boolean;
  resolve: (value: R) => void;
  reject: (error: unknown) => void;
}
