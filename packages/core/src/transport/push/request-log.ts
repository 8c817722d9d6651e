/** What a test double received, in arrival order, and the tests waiting for a number of entries. */
export class RequestLog<T> {
  /** Every entry, in arrival order (a double hands this array out as it is). */
  readonly entries: T[] = [];
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  record(entry: T): void {
    this.entries.push(entry);
    for (const waiter of [...this.waiters]) {
      if (this.entries.length < waiter.count) continue;
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }

  /** Resolves once `count` entries were recorded in all. */
  waitFor(count: number): Promise<void> {
    return this.entries.length >= count ? Promise.resolve() : new Promise((resolve) => this.waiters.push({ count, resolve }));
  }
}
