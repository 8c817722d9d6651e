import type { PushThrottleStore } from '@tilecast/core/storage';
import type { MemoryState } from './state.js';

/** A window covers [start, endsAt): at `endsAt` it is over. */
export function throttleMethods(state: MemoryState): PushThrottleStore {
  return {
    // ATOMIC: compare and set in one synchronous step.
    async claimWidgetPush(key, { now, windowMs }) {
      const window = state.throttle.get(key);
      if (!window || now >= window.endsAt) {
        // A trailing push still pending from an ended window is superseded by this one.
        const endsAt = now + windowMs;
        state.throttle.set(key, { endsAt, windowMs, trailingPending: false });
        return { send: 'now', windowEndsAt: endsAt };
      }
      if (window.trailingPending) return { send: 'later', at: window.endsAt, trailingScheduled: true };
      window.trailingPending = true;
      return { send: 'later', at: window.endsAt, trailingScheduled: false };
    },

    // ATOMIC: the pending flag is cleared and the new window set in one synchronous step.
    async claimTrailingPush(key, { now, windowMs }) {
      const window = state.throttle.get(key);
      if (!window?.trailingPending) return false;
      // A timer that fires a little early (another instance's clock) still sends: the
      // trailing push is never lost, and the new window starts at `now`.
      state.throttle.set(key, { endsAt: now + windowMs, windowMs, trailingPending: false });
      return true;
    },
  };
}
