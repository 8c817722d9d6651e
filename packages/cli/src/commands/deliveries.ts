import { type DeadLetterSummary, DEFAULT_DELIVERY_PAGE, type DeliverySummary, MAX_DELIVERY_PAGE } from '@tilecast/core';
import { defineCommand } from '../command.js';
import { table, wholeNumber } from './shared.js';

/**
 * `tilecast deliveries`: the delivery jobs not done yet, or with `--failed` the dead
 * letters (docs/contract/durable-delivery.md#durable-operator-listing).
 */
export const deliveriesCommand = defineCommand({
  words: ['deliveries'],
  summary: 'list the pending delivery jobs, or with --failed the pushes that failed for good',
  description: `Lists the delivery jobs not done yet, oldest first: one per activity or widget whose pushes are still being sent, with what it sends, how far it got (devices go in id order), when it is due, how long it has waited, which server instance holds its lease and how often it was resumed after an instance died. With --failed, lists the dead letters instead, newest first: pushes that failed for good in the last 7 days, with the device, the transport and the reason. At most ${DEFAULT_DELIVERY_PAGE} rows unless --limit says otherwise.`,
  arguments: [],
  options: {
    failed: { help: 'list the dead letters (pushes that failed for good) instead of the pending jobs' },
    account: { value: '<account>', help: "only this account's (it must exist)" },
    limit: { value: '<n>', help: `at most this many rows, 1-${MAX_DELIVERY_PAGE}; default ${DEFAULT_DELIVERY_PAGE}` },
  },
  examples: ['deliveries', 'deliveries --failed --account acme', 'deliveries --limit 1000 --json'],
  async run({ options }, database) {
    // Read before connecting: a malformed number is a usage error that needs no database.
    const limit = options.limit === undefined ? undefined : wholeNumber(options.limit, '--limit');
    const query = { ...(options.account === undefined ? {} : { accountId: options.account }), ...(limit === undefined ? {} : { limit }) };
    const management = await database.management();
    const now = Date.now();
    const shown = limit ?? DEFAULT_DELIVERY_PAGE;
    if (options.failed !== undefined) {
      const letters = await management.listDeadLetters(query);
      return { json: { dead_letters: letters.map(deadLetterJson) }, text: deadLetterText(letters, { now, limit: shown, account: options.account }) };
    }
    const jobs = await management.listDeliveries(query);
    return { json: { deliveries: jobs.map(deliveryJson) }, text: deliveryText(jobs, { now, limit: shown, account: options.account }) };
  },
});

interface View {
  now: number;
  /** How many rows were asked for: a full page may not be all. */
  limit: number;
  account: string | undefined;
}

/** A pending job in `--json` output: snake_case names, times in ISO 8601 (UTC). */
export const deliveryJson = (job: DeliverySummary) => ({
  account: job.accountId,
  kind: job.kind,
  slug: job.slug,
  phase: job.phase,
  cursor: job.cursor === '' ? null : job.cursor,
  due_at: iso(job.dueAt),
  created_at: iso(job.createdAt),
  leased_by: job.leasedBy,
  lease_until: job.leaseUntil === 0 ? null : iso(job.leaseUntil),
  resumed: job.resumed,
});

export const deadLetterJson = (letter: DeadLetterSummary) => ({
  account: letter.accountId,
  kind: letter.kind,
  slug: letter.slug,
  device: letter.deviceId,
  transport: letter.transport,
  reason: letter.reason,
  at: iso(letter.at),
});

export function deliveryText(jobs: readonly DeliverySummary[], view: View): string {
  if (jobs.length === 0) return `No pending deliveries${view.account === undefined ? '' : ` for account ${view.account}`}.`;
  const rows = jobs.map((job) => [
    `${job.kind} ${job.accountId}/${job.slug}`,
    job.phase,
    job.cursor === '' ? 'not started' : `after ${job.cursor}`,
    job.dueAt <= view.now ? 'now' : `in ${span(job.dueAt - view.now)}`,
    span(view.now - job.createdAt),
    lease(job, view.now),
    String(job.resumed),
  ]);
  return withMore(table(['RESOURCE', 'PHASE', 'PROGRESS', 'DUE', 'AGE', 'LEASE', 'RESUMED'], rows), jobs.length, view.limit, 'oldest');
}

export function deadLetterText(letters: readonly DeadLetterSummary[], view: View): string {
  if (letters.length === 0) return `No dead letters${view.account === undefined ? '' : ` for account ${view.account}`} in the last 7 days.`;
  // The reason last: it is free text of any length, and the last column is not padded.
  const rows = letters.map((letter) => [
    `${letter.kind} ${letter.accountId}/${letter.slug}`,
    letter.deviceId,
    letter.transport,
    `${iso(letter.at)} (${span(view.now - letter.at)} ago)`,
    letter.reason,
  ]);
  return withMore(table(['RESOURCE', 'DEVICE', 'TRANSPORT', 'TIME', 'REASON'], rows), letters.length, view.limit, 'newest');
}

/** A full page says that there may be more, and how to see them. */
function withMore(text: string, rows: number, limit: number, which: 'oldest' | 'newest'): string {
  if (rows < limit) return text;
  const how = limit < MAX_DELIVERY_PAGE ? `--limit up to ${MAX_DELIVERY_PAGE} shows more, --account narrows` : '--account narrows';
  return `${text}\nThe ${which} ${rows} shown; there may be more (${how}).`;
}

/** Who holds the lease: `-` when nobody does (never claimed, or given back), `lapsed` when the holder's time is up (any instance may resume it). */
function lease(job: DeliverySummary, now: number): string {
  if (job.leasedBy === null || job.leaseUntil === 0) return '-';
  return job.leaseUntil > now ? `${job.leasedBy} (${span(job.leaseUntil - now)} left)` : `${job.leasedBy} (lapsed ${span(now - job.leaseUntil)} ago)`;
}

/** A duration for people: `850ms`, `42s`, `3m 05s`, `2h 07m`, `3d 04h`. */
export function span(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s === 0) return `${Math.max(0, Math.round(ms))}ms`;
  if (s < 60) return `${s}s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3_600) return `${Math.floor(s / 60)}m ${pad(s % 60)}s`;
  if (s < 86_400) return `${Math.floor(s / 3_600)}h ${pad(Math.floor(s / 60) % 60)}m`;
  return `${Math.floor(s / 86_400)}d ${pad(Math.floor(s / 3_600) % 24)}h`;
}

/** Epoch ms as ISO 8601 to the second, UTC: `2026-11-27T06:45:51Z`. */
function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
