import { describe, expect, it } from 'vitest';
import { BatchReads } from '../../../src/transport/push/batch-reads.js';

/** A read of a fixed table that records the ids of every call, and answers when the test says so (or at once). */
function readRig(table: Record<string, string>, options: { held?: boolean } = {}) {
  const calls: (readonly string[])[] = [];
  const answers: (() => void)[] = [];
  const read = (ids: readonly string[]): Promise<Map<string, string>> => {
    calls.push([...ids]);
    const found = new Map(ids.filter((id) => id in table).map((id) => [id, table[id]!]));
    if (!options.held) return Promise.resolve(found);
    return new Promise((resolve) => answers.push(() => resolve(found)));
  };
  return { read, calls, answer: () => answers.shift()!() };
}

describe('BatchReads', () => {
  it('gathers the lookups of one synchronous stretch into one read, and answers each caller with its own record', async () => {
    const { read, calls } = readRig({ a: 'A', b: 'B', c: 'C' });
    const reads = new BatchReads<string>();
    const lookups = [reads.lookup('', 'a', read), reads.lookup('', 'missing', read), reads.lookup('', 'c', read)];
    expect(calls).toEqual([]); // nothing is read before the stretch ends
    expect(await Promise.all(lookups)).toEqual(['A', undefined, 'C']);
    expect(calls).toEqual([['a', 'missing', 'c']]);
  });

  it('keeps nothing across batches: a later lookup reads again and sees what changed', async () => {
    const table: Record<string, string> = { a: 'first' };
    const { read, calls } = readRig(table);
    const reads = new BatchReads<string>();
    expect(await reads.lookup('', 'a', read)).toBe('first');
    table.a = 'second';
    expect(await reads.lookup('', 'a', read)).toBe('second');
    delete table.a; // a token removed (APNs 410) is never answered from the older read
    expect(await reads.lookup('', 'a', read)).toBeUndefined();
    expect(calls).toEqual([['a'], ['a'], ['a']]);
  });

  it('asks for an id looked up twice in a batch once, and answers both callers', async () => {
    const { read, calls } = readRig({ a: 'A' });
    const reads = new BatchReads<string>();
    expect(await Promise.all([reads.lookup('', 'a', read), reads.lookup('', 'b', read), reads.lookup('', 'a', read)])).toEqual(['A', undefined, 'A']);
    expect(calls).toEqual([['a', 'b']]);
  });

  it('reads each group apart, with the read of its lookups', async () => {
    const first = readRig({ a: 'first A' });
    const second = readRig({ a: 'second A', b: 'second B' });
    const reads = new BatchReads<string>();
    const lookups = [
      reads.lookup('one', 'a', first.read),
      reads.lookup('two', 'a', second.read),
      reads.lookup('two', 'b', second.read),
      reads.lookup('one', 'b', first.read),
    ];
    expect(await Promise.all(lookups)).toEqual(['first A', 'second A', 'second B', undefined]);
    expect(first.calls).toEqual([['a', 'b']]);
    expect(second.calls).toEqual([['a', 'b']]);
  });

  it('sends a group at once when it holds `max` ids; the lookups after it start the next batch', async () => {
    const table = Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`d${i}`, `token ${i}`]));
    const { read, calls } = readRig(table);
    const reads = new BatchReads<string>(3);
    const lookups = Object.keys(table).map((id) => reads.lookup('', id, read));
    // Two full batches went out inside the stretch; the last id waits for its end.
    expect(calls).toEqual([
      ['d0', 'd1', 'd2'],
      ['d3', 'd4', 'd5'],
    ]);
    expect(await Promise.all(lookups)).toEqual(Object.values(table));
    expect(calls.at(-1)).toEqual(['d6']);
    expect(calls).toHaveLength(3);
  });

  it('rejects every caller of a failed read with its error, and only them', async () => {
    const failure = new Error('store down');
    const reads = new BatchReads<string>();
    const failing = () => Promise.reject(failure);
    const throwing = () => {
      throw failure;
    };
    const good = readRig({ a: 'A' });
    const results = await Promise.allSettled([
      reads.lookup('bad', 'a', failing),
      reads.lookup('bad', 'b', failing),
      reads.lookup('thrown', 'a', throwing),
      reads.lookup('good', 'a', good.read),
    ]);
    expect(results).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
      { status: 'fulfilled', value: 'A' },
    ]);
    // The next batch reads again.
    expect(await reads.lookup('good', 'a', good.read)).toBe('A');
  });

  it("gathers the lookups made while a group's read is out into its next read, sent as that one settles", async () => {
    const { read, calls, answer } = readRig({ a: 'A', b: 'B', c: 'C' }, { held: true });
    const reads = new BatchReads<string>();
    const first = reads.lookup('', 'a', read);
    await Promise.resolve(); // the stretch ended: the first read is out
    expect(calls).toEqual([['a']]);
    const later = [reads.lookup('', 'b', read)];
    await Promise.resolve();
    later.push(reads.lookup('', 'c', read)); // another stretch, the read still out
    await Promise.resolve();
    expect(calls).toEqual([['a']]);
    answer();
    expect(await first).toBe('A');
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([['a'], ['b', 'c']]);
    answer();
    expect(await Promise.all(later)).toEqual(['B', 'C']);
  });

  it("never holds one group's lookups for another group's read", async () => {
    const slow = readRig({ a: 'slow A' }, { held: true });
    const quick = readRig({ a: 'quick A' });
    const reads = new BatchReads<string>();
    const held = reads.lookup('slow', 'a', slow.read);
    await Promise.resolve();
    expect(await reads.lookup('quick', 'a', quick.read)).toBe('quick A');
    slow.answer();
    expect(await held).toBe('slow A');
  });

  it('sends a full batch at once even while a read of its group is out', async () => {
    const { read, calls, answer } = readRig({ a: 'A', b: 'B', c: 'C' }, { held: true });
    const reads = new BatchReads<string>(2);
    const first = reads.lookup('', 'a', read);
    await Promise.resolve();
    const full = [reads.lookup('', 'b', read), reads.lookup('', 'c', read)];
    expect(calls).toEqual([['a'], ['b', 'c']]);
    answer();
    answer();
    expect(await Promise.all([first, ...full])).toEqual(['A', 'B', 'C']);
  });

  it('after a failed read, the lookups that waited for it are read anew', async () => {
    const failure = new Error('store down');
    let fail = true;
    const calls: (readonly string[])[] = [];
    let release!: () => void;
    const read = (ids: readonly string[]) => {
      calls.push([...ids]);
      if (fail) return new Promise<Map<string, string>>((_, reject) => (release = () => reject(failure)));
      return Promise.resolve(new Map(ids.map((id) => [id, id.toUpperCase()])));
    };
    const reads = new BatchReads<string>();
    const failed = reads.lookup('', 'a', read);
    await Promise.resolve();
    const waited = reads.lookup('', 'b', read);
    fail = false;
    release();
    await expect(failed).rejects.toBe(failure);
    expect(await waited).toBe('B');
    expect(calls).toEqual([['a'], ['b']]);
  });

  it('refuses a cap that is not a positive integer', () => {
    expect(() => new BatchReads(0)).toThrow(RangeError);
    expect(() => new BatchReads(1.5)).toThrow(RangeError);
  });
});
