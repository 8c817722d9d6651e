import type { DeliveryJobStats } from '../storage/delivery-jobs.js';

/** A pending delivery job older than this is named in `/readyz`'s detail unless told otherwise (docs/contract/deployment.md#readyz-detail). */
export const DEFAULT_DELIVERY_LATE_AFTER_MS = 60_000;

/**
 * The `/readyz` detail line about delivery jobs, or null when there is nothing to say: the
 * oldest pending job has waited longer than `lateAfterMs`, or the jobs could not be read
 * (`error`, `late`: the store answered the readiness read, so the instance stays ready).
 * The line says how long and nothing else: `/readyz` needs no authentication, so it names
 * no account, resource or error text (the log has the error; the metrics have the count).
 */
export function deliveryDetail(stats: DeliveryJobStats | 'error' | 'late', at: { now: number; lateAfterMs: number; deadlineMs: number }): string | null {
  if (stats === 'error') return 'delivery: the pending jobs could not be read';
  if (stats === 'late') return `delivery: the pending jobs were not read within ${duration(at.deadlineMs)}`;
  if (stats.oldestCreatedAt === null) return null;
  const age = at.now - stats.oldestCreatedAt;
  if (age <= at.lateAfterMs) return null;
  return `delivery: the oldest pending job has waited ${duration(age)} (over ${duration(at.lateAfterMs)})`;
}

/** `95000` → `95 s`, `1500` → `1.5 s`, `50` → `50 ms`. */
function duration(ms: number): string {
  return ms < 1_000 ? `${Math.round(ms)} ms` : `${Math.round(ms / 100) / 10} s`;
}
