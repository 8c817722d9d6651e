/**
 * Paces the pushes being worked on (registry lookup, building, waiting for a stream,
 * sending): at most `limit` at once, at most `perTurn` started per turn of the event loop,
 * first come first served. A fan-out to ten thousand devices hands the transport every
 * push in one go, and every answer from APNs frees a slot: started at once, the work would
 * run in long uninterrupted stretches, and the publisher's requests arriving meanwhile
 * would wait for them. Paced, the process's other I/O runs between every few pushes.
 */
export class Admission {
  private active = 0;
  private budget: number;
  private scheduled = false;
  private readonly waiting: Array<{ work: Work; resolve: () => void; reject: (error: unknown) => void }> = [];

  constructor(
    private readonly limit: number,
    private readonly perTurn: number,
  ) {
    this.budget = perTurn;
  }

  /**
   * Runs `work` once a slot is free, and settles as it does. `work` gets `leave`, which
   * gives the slot up early (a push waiting to retry); it is given up at the latest when
   * `work` settles. Calling `leave` more than once does nothing.
   */
  run(work: Work): Promise<void> {
    if (this.waiting.length === 0 && this.active < this.limit && this.budget > 0) return this.start(work);
    const queued = new Promise<void>((resolve, reject) => this.waiting.push({ work, resolve, reject }));
    this.nextTurn();
    return queued;
  }

  /** Pushes holding a slot and pushes waiting for one. */
  load(): { working: number; queued: number } {
    return { working: this.active, queued: this.waiting.length };
  }

  private async start(work: Work): Promise<void> {
    this.active += 1;
    this.budget -= 1;
    this.nextTurn();
    let left = false;
    const leave = () => {
      if (left) return;
      left = true;
      this.active -= 1;
      if (this.waiting.length > 0) this.nextTurn();
    };
    try {
      await work(leave);
    } finally {
      leave();
    }
  }

  /** A new budget, and waiting pushes started, in the next turn of the event loop. */
  private nextTurn(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.budget = this.perTurn;
      while (this.waiting.length > 0 && this.active < this.limit && this.budget > 0) {
        const next = this.waiting.shift()!;
        this.start(next.work).then(next.resolve, next.reject);
      }
    });
  }
}

type Work = (leave: () => void) => Promise<void>;
