import { expect, it } from 'vitest';
import { type GetHandles, T0, either, newEvent, uid } from '../harness.js';

const LATER = T0 + 3_600_000;

export function eventTests(get: GetHandles): void {
  it('appendEvent numbers positions 1, 2, 3 per account and returns the stored event', async () => {
    const { storage } = get();
    const account = uid('acct');
    expect(await storage.lastEventPosition(account)).toBe(0);
    for (const position of [1, 2, 3]) {
      const event = newEvent(LATER);
      expect(await storage.appendEvent(account, event)).toEqual({ ...event, position });
      expect(await storage.lastEventPosition(account)).toBe(position);
    }
  });

  it('positions are independent per account', async () => {
    const { storage } = get();
    const [a, b] = [uid('acct'), uid('acct')];
    const order = [a, a, b, a, b, b, b];
    const positions = [];
    for (const account of order) positions.push((await storage.appendEvent(account, newEvent(LATER))).position);
    expect(positions).toEqual([1, 2, 1, 3, 2, 3, 4]);
    expect(await storage.lastEventPosition(a)).toBe(3);
    expect(await storage.lastEventPosition(b)).toBe(4);
    expect((await storage.readEvents(a, { after: 0, now: T0, limit: 100 })).map((e) => e.position)).toEqual([1, 2, 3]);
  });

  it("readEvents returns events after a position, in order, at most limit, never another account's", async () => {
    const { storage } = get();
    const account = uid('acct');
    const neighbour = uid('acct');
    const appended = [];
    for (let i = 0; i < 6; i++) {
      appended.push(await storage.appendEvent(account, newEvent(LATER, { subject: `widget/w${i}` })));
      await storage.appendEvent(neighbour, newEvent(LATER));
    }
    expect(await storage.readEvents(account, { after: 0, now: T0, limit: 100 })).toEqual(appended);
    expect(await storage.readEvents(account, { after: 2, now: T0, limit: 100 })).toEqual(appended.slice(2));
    expect(await storage.readEvents(account, { after: 0, now: T0, limit: 2 })).toEqual(appended.slice(0, 2));
    expect(await storage.readEvents(account, { after: 3, now: T0, limit: 2 })).toEqual(appended.slice(3, 5));
    expect(await storage.readEvents(account, { after: 6, now: T0, limit: 100 })).toEqual([]);
    expect(await storage.readEvents(account, { after: 600, now: T0, limit: 100 })).toEqual([]);
    expect(await storage.readEvents(uid('acct'), { after: 0, now: T0, limit: 100 })).toEqual([]);
    const ids = new Set(appended.map((e) => e.id));
    expect((await storage.readEvents(neighbour, { after: 0, now: T0, limit: 100 })).some((e) => ids.has(e.id))).toBe(false);
  });

  it('readEvents skips expired events: an event is readable while expiresAt > now', async () => {
    const { storage } = get();
    const account = uid('acct');
    const short = await storage.appendEvent(account, newEvent(T0 + 5_000));
    const long = await storage.appendEvent(account, newEvent(T0 + 60_000));
    const shortAgain = await storage.appendEvent(account, newEvent(T0 + 5_000));
    expect(await storage.readEvents(account, { after: 0, now: T0 + 4_999, limit: 10 })).toEqual([short, long, shortAgain]);
    expect(await storage.readEvents(account, { after: 0, now: T0 + 5_000, limit: 10 })).toEqual([long]);
    expect(await storage.readEvents(account, { after: 0, now: T0 + 60_000, limit: 10 })).toEqual([]);
    // `limit` counts returned events, not skipped ones.
    expect(await storage.readEvents(account, { after: 0, now: T0 + 5_000, limit: 1 })).toEqual([long]);
    // Expiry never frees or reuses a position.
    expect(await storage.lastEventPosition(account)).toBe(3);
    expect((await storage.appendEvent(account, newEvent(LATER))).position).toBe(4);
  });

  it('countEvents (when the store has it) counts the events held over every account until purged', async () => {
    const { storage } = get();
    if (storage.countEvents === undefined) return; // optional in the contract: nothing to check
    const before = await storage.countEvents();
    const [a, b] = [uid('acct'), uid('acct')];
    await storage.appendEvent(a, newEvent(T0 + 1_000));
    await storage.appendEvent(a, newEvent(LATER));
    await storage.appendEvent(b, newEvent(T0 + 1_000));
    expect(await storage.countEvents()).toBe(before + 3);
    // Expired but not yet purged: still held.
    expect(await storage.readEvents(a, { after: 0, now: T0 + 1_000, limit: 10 })).toHaveLength(1);
    expect(await storage.countEvents()).toBe(before + 3);
  });

  it('keeps the envelope exactly as given', async () => {
    const { storage } = get();
    const account = uid('acct');
    const envelope = {
      id: uid('evt'),
      type: 'widget.pressed',
      nested: { deep: [1, 2.5, 'three', null, true, { x: 'ü€😀' }] },
      empty: {},
      list: [],
    };
    const event = newEvent(LATER, { envelope, subject: 'widget/a/b', type: 'widget.pressed' });
    await storage.appendEvent(account, event);
    expect(await storage.readEvents(account, { after: 0, now: T0, limit: 1 })).toEqual([{ ...event, position: 1 }]);
  });

  it('concurrent appends from two handles get distinct, contiguous positions', async () => {
    const handles = get();
    const account = uid('acct');
    const events = Array.from({ length: 100 }, () => newEvent(LATER));
    const stored = await Promise.all(events.map((event, i) => either(handles, i).appendEvent(account, event)));
    expect(stored.map((e) => e.position).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    for (const [i, event] of events.entries()) expect(stored[i]).toEqual({ ...event, position: stored[i]!.position });
    const read = await handles.peer.readEvents(account, { after: 0, now: T0, limit: 1_000 });
    expect(read.map((e) => e.position)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(new Set(read.map((e) => e.id))).toEqual(new Set(events.map((e) => e.id)));
    expect(await handles.storage.lastEventPosition(account)).toBe(100);
  });

  it('concurrent appends to two accounts keep each account contiguous', async () => {
    const handles = get();
    const accounts = [uid('acct'), uid('acct')];
    const stored = await Promise.all(Array.from({ length: 60 }, (_, i) => either(handles, i >> 1).appendEvent(accounts[i % 2]!, newEvent(LATER))));
    for (const [k, account] of accounts.entries()) {
      const positions = stored
        .filter((_, i) => i % 2 === k)
        .map((e) => e.position)
        .sort((x, y) => x - y);
      expect(positions).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
      expect(await handles.peer.lastEventPosition(account)).toBe(30);
    }
  });
}
