import { describe, expect, it } from 'vitest';
import { Admission } from '../../../src/transport/push/admission.js';

/** A few turns of the event loop: what Admission schedules with setImmediate has run. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

interface Item {
  key: string;
  name: string;
}

/** An admission whose work only ends when the test says so; it records what started, in order. */
function admissionRig(limit: number, perTurn = 8) {
  const started: string[] = [];
  const finish = new Map<string, () => void>();
  const admission = new Admission<Item, string>(
    limit,
    perTurn,
    (item) =>
      new Promise<string>((resolve) => {
        started.push(item.name);
        finish.set(item.name, () => resolve(`done ${item.name}`));
      }),
    () => 'replaced',
  );
  const run = (key: string, name: string, ahead = false) => admission.run({ key, name }, ahead);
  return { admission, started, run, finish: (name: string) => finish.get(name)!() };
}

describe('push Admission: latest wins while waiting (docs/contract/apns.md#apns-latest-wins)', () => {
  it('a newer item of a waiting key takes its place in the queue; the older one settles replaced at once', async () => {
    const a = admissionRig(1);
    const first = a.run('x', 'x1');
    const older = a.run('y', 'y1');
    const other = a.run('z', 'z1');
    const newer = a.run('y', 'y2');
    expect(await older).toBe('replaced');
    expect(a.admission.load()).toEqual({ working: 1, queued: 2 });
    a.finish('x1');
    expect(await first).toBe('done x1');
    await flush();
    // y2 took y1's place, ahead of z1 which came after y1.
    expect(a.started).toEqual(['x1', 'y2']);
    a.finish('y2');
    await flush();
    expect(a.started).toEqual(['x1', 'y2', 'z1']);
    a.finish('z1');
    expect(await Promise.all([newer, other])).toEqual(['done y2', 'done z1']);
  });

  it('holds one waiting item per key, however many items come', async () => {
    const a = admissionRig(1);
    void a.run('busy', 'busy');
    const settled: string[] = [];
    for (let i = 0; i < 3_000; i++) void a.run(`k${i % 3}`, `k${i % 3}#${i}`).then((outcome) => settled.push(outcome));
    await flush();
    expect(a.admission.load()).toEqual({ working: 1, queued: 3 });
    expect(settled).toHaveLength(2_997);
    expect(settled.every((outcome) => outcome === 'replaced')).toBe(true);
    a.finish('busy');
    await flush();
    expect(a.started).toEqual(['busy', 'k0#2997']);
  });

  it('an item ahead takes no slot and starts before the waiting ones, within the turn budget', async () => {
    const a = admissionRig(1, 2);
    void a.run('x', 'x1');
    void a.run('y', 'y1');
    void a.run('a', 'a1', true);
    void a.run('b', 'b1', true);
    void a.run('c', 'c1', true);
    // This turn's budget of two: x1, then a1 at once (nothing ahead of it), without a slot.
    expect(a.started).toEqual(['x1', 'a1']);
    await flush();
    // The next turn's: those ahead first; y1 still waits for the slot x1 holds.
    expect(a.started).toEqual(['x1', 'a1', 'b1', 'c1']);
    expect(a.admission.load()).toEqual({ working: 4, queued: 1 }); // only x1 holds a slot
    a.finish('x1');
    await flush();
    expect(a.started).toEqual(['x1', 'a1', 'b1', 'c1', 'y1']);
  });
});

describe('push Admission: settled', () => {
  it('is called once per admitted item as its work settles, fulfilled, rejected or thrown, before its slot is free', async () => {
    const events: string[] = [];
    let admission!: Admission<Item, string>;
    const freeSlot = () => admission.load().working;
    admission = new Admission<Item, string>(
      1,
      8,
      (item) => {
        if (item.name === 'throws') throw new Error('thrown');
        return item.name === 'rejects' ? Promise.reject(new Error('rejected')) : Promise.resolve(`done ${item.name}`);
      },
      () => 'replaced',
      // The slot is still held when settled is called: working counts it.
      (item) => events.push(`${item.name} settled, working ${freeSlot()}`),
    );
    expect(await admission.run({ key: 'a', name: 'fulfils' })).toBe('done fulfils');
    await expect(admission.run({ key: 'b', name: 'rejects' })).rejects.toThrow('rejected');
    await flush();
    await expect(admission.run({ key: 'c', name: 'throws' })).rejects.toThrow('thrown');
    await flush();
    // Waiting behind a busy slot and replaced there: it never started, so it never settles here.
    const busy = new Admission<Item, string>(
      1,
      8,
      (item) => (item.name === 'hold' ? new Promise<string>(() => {}) : Promise.resolve(item.name)),
      () => 'replaced',
      (item) => events.push(`${item.name} settled`),
    );
    void busy.run({ key: 'x', name: 'hold' });
    const older = busy.run({ key: 'y', name: 'older' });
    void busy.run({ key: 'y', name: 'newer' });
    expect(await older).toBe('replaced');
    expect(events).toEqual(['fulfils settled, working 1', 'rejects settled, working 1', 'throws settled, working 1']);
    expect(admission.load()).toEqual({ working: 0, queued: 0 });
  });
});
