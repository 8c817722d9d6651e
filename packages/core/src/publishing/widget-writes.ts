import type { Clock } from '../clock.js';
import type { WriteClaimTerms } from '../storage/delivery-jobs.js';
import type { WidgetContentResult } from '../storage/records.js';
import type { Storage } from '../storage/storage.js';
import { widgetKey } from '../storage/widget-key.js';

/** One accepted `PATCH /widget` body, validated, as `updateWidget` writes it. */
export interface WidgetWrite {
  content: unknown;
  /** `undefined` keeps the widget's setting (docs/contract/publisher-api.md#widget-stale-after). */
  staleAfter: number | null | undefined;
  guard: { tokenHash: string; template: string };
}

/** Updates of one widget waiting to be written together: same guard, same `stale_after`. */
interface Batch {
  readonly guard: WidgetWrite['guard'];
  readonly staleAfter: number | null | undefined;
  /** Each waiting update's content with its settlement; the last one's content is written. */
  readonly waiters: Waiter[];
}

interface Waiter {
  content: unknown;
  resolve(result: WidgetContentResult): void;
  reject(error: unknown): void;
}

/** The queue of a widget with a write in flight and nothing waiting (shared, never changed). */
const NOTHING_WAITING: readonly Batch[] = Object.freeze([]);

/**
 * Writes widget content with at most one write per widget in flight on this instance
 * (docs/contract/publisher-api.md#widget-concurrent-updates). Updates of a widget that
 * arrive while its write is in flight wait for it and are then written as one: the latest
 * content wins, as the widget would show it a moment later anyway, and every one of them
 * is answered once that write is stored (never before: nothing answered is lost). A store
 * that serialises writes of one row (PostgreSQL's row lock) then commits once per batch
 * instead of once per request.
 *
 * Only updates with the same guard (token hash and template) and the same `stale_after`
 * are written together, so each gets the answer and the refusal it would get on its own:
 * one written right after the other, with nothing read in between. `written` is called
 * once per stored write, with its result (the delivery of its latest content).
 */
export class WidgetWrites {
  /** Per widget with a write in flight, the batches waiting for it, oldest first. */
  readonly #queues = new Map<string, readonly Batch[]>();

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    private readonly written: (result: Extract<WidgetContentResult, { ok: true }>) => void,
    /** The claim each write passes to the store (the fan-out's `writeClaim`): asked per write, none by default. */
    private readonly claim: () => WriteClaimTerms | undefined = () => undefined,
  ) {}

  write(accountId: string, slug: string, write: WidgetWrite): Promise<WidgetContentResult> {
    const key = widgetKey(accountId, slug);
    const queued = this.#queues.get(key);
    if (queued === undefined) {
      // Nothing in flight: written at once, no added wait, no queue allocated.
      this.#queues.set(key, NOTHING_WAITING);
      return this.#store(key, accountId, slug, write.guard, write.content, write.staleAfter);
    }
    return new Promise((resolve, reject) => {
      let batches = queued as Batch[];
      if (queued === NOTHING_WAITING) {
        batches = [];
        this.#queues.set(key, batches);
      }
      const last = batches[batches.length - 1];
      const waiter: Waiter = { content: write.content, resolve, reject };
      if (last !== undefined && joins(last, write)) last.waiters.push(waiter);
      else batches.push({ guard: write.guard, staleAfter: write.staleAfter, waiters: [waiter] });
    });
  }

  /** One write to the store; once it settled, the next batch of the widget goes (`#next`). */
  #store(key: string, accountId: string, slug: string, guard: WidgetWrite['guard'], content: unknown, staleAfter: number | null | undefined) {
    return this.storage.setWidgetContent(accountId, slug, { content, staleAfter, now: this.clock.now(), guard, claim: this.claim() }).then(
      (result) => {
        // The widget's next batch goes whatever `written` does: a queue left waiting would hold every later update.
        try {
          if (result.ok) this.written(result);
        } finally {
          this.#next(key, accountId, slug);
        }
        return result;
      },
      (error: unknown) => {
        this.#next(key, accountId, slug);
        throw error;
      },
    );
  }

  /** After a write settled: the oldest waiting batch is written, or the widget has nothing in flight any more. */
  #next(key: string, accountId: string, slug: string): void {
    const batches = this.#queues.get(key);
    if (batches === undefined || batches.length === 0) {
      this.#queues.delete(key);
      return;
    }
    const batch = (batches as Batch[]).shift()!;
    const { waiters } = batch;
    const latest = waiters[waiters.length - 1]!;
    this.#store(key, accountId, slug, batch.guard, latest.content, batch.staleAfter).then(
      (result) => {
        for (const waiter of waiters) waiter.resolve(waiter === latest || !result.ok ? result : withContent(result, waiter.content));
      },
      (error: unknown) => {
        for (const waiter of waiters) waiter.reject(error);
      },
    );
  }
}

/** Whether `write` can be stored with `batch`: the same guard and `stale_after`, so the same answer either way. */
function joins(batch: Batch, write: WidgetWrite): boolean {
  return batch.guard.tokenHash === write.guard.tokenHash && batch.guard.template === write.guard.template && batch.staleAfter === write.staleAfter;
}

/** The answer to an update written together with later ones: the widget as that update left it, with its own content. */
function withContent(result: Extract<WidgetContentResult, { ok: true }>, content: unknown): WidgetContentResult {
  return { ...result, widget: { ...result.widget, content } };
}
