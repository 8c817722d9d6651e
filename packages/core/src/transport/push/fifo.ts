/**
 * First in, first out, in chunks: `shift` never moves the entries behind the head
 * (`Array.prototype.shift` on a long array copies it, tens of microseconds per call).
 */
export class Fifo<T> {
  private head: T[] = [];
  private headIndex = 0;
  private tail: T[] = [];
  size = 0;

  push(item: T): void {
    this.tail.push(item);
    this.size += 1;
  }

  shift(): T | undefined {
    if (this.headIndex === this.head.length) {
      if (this.tail.length === 0) return undefined;
      this.head = this.tail;
      this.headIndex = 0;
      this.tail = [];
    }
    const item = this.head[this.headIndex]!;
    this.head[this.headIndex] = undefined as T; // not kept alive by the queue once taken
    this.headIndex += 1;
    this.size -= 1;
    return item;
  }
}
