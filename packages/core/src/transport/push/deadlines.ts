import type { Clock } from '@tilecast/core';

/** One request's deadline; `onTimeout` runs once it passes without the request leaving. */
export interface Deadline {
  readonly at: number;
  readonly onTimeout: () => void;
}

/**
 * The request timeouts of one connection, with one timer for all of them: requests start
 * in time order, so the earliest deadline is the oldest request's, and the timer is armed
 * for it alone. A timer per request (made, listed and cleared for every push) cost more
 * than the rest of the bookkeeping of a push.
 */
export class Deadlines {
  private readonly pending = new Set<Deadline>();
  private timer: unknown = undefined;

  constructor(
    private readonly clock: Clock,
    private readonly timeoutMs: number,
  ) {}

  /** Starts counting for a request that starts now. */
  add(onTimeout: () => void): Deadline {
    const deadline: Deadline = { at: this.clock.now() + this.timeoutMs, onTimeout };
    this.pending.add(deadline);
    if (this.timer === undefined) this.arm(deadline.at);
    return deadline;
  }

  /** The request left (answered, failed or cancelled). */
  remove(deadline: Deadline): void {
    this.pending.delete(deadline);
    if (this.pending.size === 0 && this.timer !== undefined) {
      this.clock.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private arm(at: number): void {
    this.timer = this.clock.setTimeout(() => this.expire(), Math.max(0, at - this.clock.now()));
  }

  private expire(): void {
    this.timer = undefined;
    const now = this.clock.now();
    for (const deadline of this.pending) {
      if (deadline.at > now) return this.arm(deadline.at);
      this.pending.delete(deadline);
      deadline.onTimeout();
    }
  }
}
