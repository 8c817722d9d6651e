import type { Clock } from '../../clock.js';

/**
 * The waits of pushes before a retry, on the transport's clock, by push (`J`, the
 * transport's job). All end at once when the transport closes: a closed transport drops
 * what was waiting rather than holding it (or the process) until its timer falls due. One
 * ends early when a newer push of its key is handed over (`endWait`): the waiting push
 * then goes on, finds itself superseded and settles, rather than holding its key until its
 * timer falls due (docs/contract/apns.md#apns-latest-wins).
 */
export class RetryWaits<J> {
  private isClosed = false;
  /** Pushes waiting: their timer, and what ends the wait early. */
  private readonly sleeping = new Map<J, Sleeper>();

  constructor(private readonly clock: Clock) {}

  /** True once `close` was called. */
  get closed(): boolean {
    return this.isClosed;
  }

  /** Pushes waiting now. */
  get size(): number {
    return this.sleeping.size;
  }

  /**
   * True after `ms` on the clock, or at once when `endWait(job)` is called; false at once
   * when closed, or as soon as `close` is called.
   */
  wait(job: J, ms: number): Promise<boolean> {
    return new Promise((resolve) => {
      if (this.isClosed) return resolve(false);
      const handle = this.clock.setTimeout(() => {
        this.sleeping.delete(job);
        resolve(true);
      }, ms);
      this.sleeping.set(job, { handle, wake: resolve });
    });
  }

  /** Ends `job`'s wait now (it resolves true), if it is waiting; answers whether it was. */
  endWait(job: J): boolean {
    const sleeper = this.sleeping.get(job);
    if (sleeper === undefined) return false;
    this.sleeping.delete(job);
    this.clock.clearTimeout(sleeper.handle);
    sleeper.wake(true);
    return true;
  }

  /** Ends every wait (each resolves false) and every wait to come. */
  close(): void {
    this.isClosed = true;
    for (const { handle, wake } of this.sleeping.values()) {
      this.clock.clearTimeout(handle);
      wake(false);
    }
    this.sleeping.clear();
  }
}

/** A push waiting to retry: its timer, and what ends the wait (true: go on; false: the transport closed). */
interface Sleeper {
  handle: unknown;
  wake: (goOn: boolean) => void;
}
