import { createManualClock, type ManualClock } from '../../../../../test/support/manual-clock.js';

export interface TestClock extends ManualClock {
  /** Durations of the timers still pending. */
  pendingDelays(): number[];
}

/** The shared manual clock, plus a view of pending timer durations (to advance exactly when a wait is set). */
export function createTestClock(): TestClock {
  const base = createManualClock();
  const delays = new Map<unknown, number>();
  return {
    ...base,
    setTimeout(fn, ms) {
      const handle: unknown = base.setTimeout(() => {
        delays.delete(handle);
        fn();
      }, ms);
      delays.set(handle, ms);
      return handle;
    },
    clearTimeout(handle) {
      delays.delete(handle);
      base.clearTimeout(handle);
    },
    pendingDelays: () => [...delays.values()],
  };
}

/** Polls (bounded) until `condition` holds; for waiting on real sockets, never on time. */
export async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
