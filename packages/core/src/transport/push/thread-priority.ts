import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** How much lower than the host's the connection worker's scheduling priority is. */
export const WORKER_NICE_STEP = 10;

/**
 * Lowers this thread's scheduling priority by WORKER_NICE_STEP (nice), so that when a
 * fan-out and the host's requests compete for a core, the requests come first. Linux sets
 * nice per thread (`setpriority` with the thread's id, which `/proc/thread-self` names).
 * Elsewhere, or where it is not allowed, the thread keeps the process's priority.
 */
export function yieldToHost(): void {
  try {
    const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(threadId) || threadId <= 0) return;
    setPriority(threadId, Math.min(19, getPriority(threadId) + WORKER_NICE_STEP));
  } catch {
    // Not Linux, or not permitted: no harm, the worker only shares the CPU evenly.
  }
}
