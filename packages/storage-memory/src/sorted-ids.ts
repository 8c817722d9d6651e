import { byCodeUnit } from './state.js';

/**
 * A set of ids that also lists them in code-unit order (the order delivery jobs walk
 * devices in), kept sorted between listings: a listing after changes sorts only the ids
 * added since and merges them in, O(n) rather than a full sort of 100,000 ids per job.
 */
export class SortedIds implements Iterable<string> {
  private readonly ids = new Set<string>();
  /** In code-unit order as of the last listing; may still hold ids removed since. */
  private inOrder: string[] = [];
  /** Added since the last listing, unsorted. */
  private added: string[] = [];
  /** Some id of `inOrder` may have been removed since the last listing. */
  private removed = false;

  get size(): number {
    return this.ids.size;
  }

  has(id: string): boolean {
    return this.ids.has(id);
  }

  add(id: string): void {
    if (this.ids.has(id)) return;
    this.ids.add(id);
    this.added.push(id);
  }

  delete(id: string): boolean {
    if (!this.ids.delete(id)) return false;
    this.removed = true;
    return true;
  }

  [Symbol.iterator](): Iterator<string> {
    return this.ids.values();
  }

  /**
   * Every id in code-unit order: the list kept here. It is never changed in place (a listing
   * after changes makes a new one), so a reader that does not change it may hold it as it
   * is; hand out a copy wherever the receiver may change it.
   */
  sorted(): readonly string[] {
    if (this.added.length > 0 || this.removed) {
      this.inOrder = mergeSorted(this.inOrder, this.added.sort(byCodeUnit), (id) => this.ids.has(id));
      this.added = [];
      this.removed = false;
    }
    return this.inOrder;
  }
}

/** Two ascending lists merged into one, keeping only ids `keep` accepts, each once. */
export function mergeSorted(a: readonly string[], b: readonly string[], keep: (id: string) => boolean): string[] {
  const out: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const id = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i++]! : b[j++]!;
    if (keep(id) && out[out.length - 1] !== id) out.push(id);
  }
  return out;
}
