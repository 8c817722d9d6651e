import { Gauge, type Registry } from 'prom-client';

/** What `Storage.deliveryJobStats()` answers: the pending delivery jobs in numbers. */
export interface DeliveryJobCounts {
  pending: number;
  /** `createdAt` (epoch ms) of the oldest pending job, or null when none is pending. */
  oldestCreatedAt: number | null;
}

/**
 * How long a scrape waits for the store's job counts: well within Prometheus's default
 * 10 s scrape timeout, so a stalled store never fails the whole scrape.
 */
export const DELIVERY_STATS_DEADLINE_MS = 2_000;

/**
 * `<prefix>delivery_jobs_pending` and `<prefix>delivery_oldest_job_age_seconds`, from one
 * store read per scrape (both gauges share it). A read that fails or misses the deadline
 * leaves both at their last values, as the event-log gauge does: the outage shows in
 * `store_errors_total` and `/readyz`, and the scrape still succeeds.
 */
export function registerDeliveryJobGauges(registry: Registry, prefix: string, read: () => Promise<DeliveryJobCounts>, clock: { now(): number }): void {
  let running: Promise<DeliveryJobCounts | null> | undefined;
  const shared = (): Promise<DeliveryJobCounts | null> =>
    (running ??= withinDeadline(read).finally(() => {
      running = undefined;
    }));
  new Gauge({
    name: `${prefix}delivery_jobs_pending`,
    help: 'Delivery jobs not done yet, over every instance and account (one per activity or widget with pushes still to send), read from the store on each scrape.',
    registers: [registry],
    async collect() {
      const counts = await shared();
      if (counts !== null) this.set(counts.pending);
    },
  });
  new Gauge({
    name: `${prefix}delivery_oldest_job_age_seconds`,
    help: 'How long the oldest pending delivery job has waited since its update was accepted (0 when none is pending), read from the store on each scrape.',
    registers: [registry],
    async collect() {
      const counts = await shared();
      if (counts === null) return;
      this.set(counts.oldestCreatedAt === null ? 0 : Math.max(0, clock.now() - counts.oldestCreatedAt) / 1000);
    },
  });
}

/** The read's answer, or null when it failed or was late (its late answer is then ignored). */
function withinDeadline(read: () => Promise<DeliveryJobCounts>): Promise<DeliveryJobCounts | null> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), DELIVERY_STATS_DEADLINE_MS);
    timer.unref?.(); // a scrape in flight never holds the process open
    Promise.resolve()
      .then(read)
      .then(resolve, () => resolve(null))
      .finally(() => clearTimeout(timer));
  });
}
