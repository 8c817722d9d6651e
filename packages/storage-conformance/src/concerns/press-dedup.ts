import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type GetHandles, T0, admission, admitKey, bucketRule as bucket, count, either, newEvent, takeUntilRefused, uid } from '../harness.js';

const TTL = 5_000;

export function pressDedupTests(get: GetHandles): void {
  it('the first press of a key is created; later ones before expiry return the first event id', async () => {
    const { storage } = get();
    const key = uid('press');
    const first = randomUUID();
    expect(await admitKey(storage, key, first, T0, T0 + TTL)).toEqual({ created: true, eventId: first });
    expect(await admitKey(storage, key, randomUUID(), T0 + 1, T0 + 1 + TTL)).toEqual({ created: false, eventId: first });
    expect(await admitKey(storage, key, randomUUID(), T0 + TTL - 1, T0 + 2 * TTL)).toEqual({ created: false, eventId: first });
  });

  it('different keys are independent', async () => {
    const { storage } = get();
    const stem = uid('owner');
    const [a, b] = [randomUUID(), randomUUID()];
    expect(await admitKey(storage, `${stem}/panel/r1`, a, T0, T0 + TTL)).toEqual({ created: true, eventId: a });
    expect(await admitKey(storage, `${stem}/panel/r2`, b, T0, T0 + TTL)).toEqual({ created: true, eventId: b });
    expect(await admitKey(storage, `${stem}/panel/R1`, b, T0, T0 + TTL)).toEqual({ created: true, eventId: b });
  });

  it('once expired (expiresAt <= now) the key can be used again, and then de-duplicates again', async () => {
    const { storage } = get();
    const key = uid('press');
    const [first, second] = [randomUUID(), randomUUID()];
    await admitKey(storage, key, first, T0, T0 + TTL);
    expect(await admitKey(storage, key, second, T0 + TTL, T0 + 2 * TTL)).toEqual({ created: true, eventId: second });
    expect(await admitKey(storage, key, randomUUID(), T0 + TTL + 1, T0 + 3 * TTL)).toEqual({ created: false, eventId: second });
  });

  it('concurrent presses of one key from two handles: exactly one created, everyone gets its event id', async () => {
    const handles = get();
    const key = uid('press');
    const ids = Array.from({ length: 30 }, () => randomUUID());
    const results = await Promise.all(ids.map((id, i) => admitKey(either(handles, i), key, id, T0, T0 + TTL)));
    expect(count(results, (r) => r.created)).toBe(1);
    const winner = results.find((r) => r.created)!.eventId;
    expect(ids).toContain(winner);
    expect(results.every((r) => r.eventId === winner)).toBe(true);
  });

  it('an accepted press has its key, its tokens, its note and its event, at its position', async () => {
    const { storage, peer } = get();
    const press = admission({ rules: [bucket(2)] });
    const result = await storage.admitPress(press);
    expect(result).toEqual({ outcome: 'accepted', event: { ...press.event, position: 1 } });
    expect(await peer.readEvents(press.accountId, { after: 0, now: T0, limit: 10 })).toEqual([{ ...press.event, position: 1 }]);
    expect(await peer.lastEventPosition(press.accountId)).toBe(1);
    expect(await peer.listRecentPressers(press.note.widgetKey, T0)).toEqual([press.note.deviceId]);
    // The next press of the account takes the next position; the bucket had two tokens.
    const next = admission({ rules: press.rules, accountId: press.accountId });
    expect(await peer.admitPress(next)).toEqual({ outcome: 'accepted', event: { ...next.event, position: 2 } });
    expect((await storage.admitPress(admission({ rules: press.rules }))).outcome).toBe('limited');
  });

  it('a duplicate is answered with the first event id and spends nothing, even with every bucket empty', async () => {
    const { storage, peer } = get();
    const rules = [bucket(1)];
    const first = admission({ rules });
    await storage.admitPress(first);
    const retry = admission({ rules, key: first.key, accountId: first.accountId, now: T0 + 10 });
    expect(await peer.admitPress(retry)).toEqual({ outcome: 'duplicate', eventId: first.event.id });
    expect(await storage.lastEventPosition(first.accountId)).toBe(1);
    expect(await storage.listRecentPressers(retry.note.widgetKey, T0)).toEqual([]);
  });

  it('a limited press writes nothing: no key, no token, no note, no event', async () => {
    const { storage, peer } = get();
    const shared = bucket(1, 1_000);
    const own = bucket(5, 60_000);
    expect((await storage.admitPress(admission({ rules: [shared] }))).outcome).toBe('accepted');
    const refused = admission({ rules: [own, shared] });
    expect(await peer.admitPress(refused)).toEqual({ outcome: 'limited' });
    expect(await storage.lastEventPosition(refused.accountId)).toBe(0);
    expect(await storage.listRecentPressers(refused.note.widgetKey, T0)).toEqual([]);
    // `own` kept its five tokens, and the key was not recorded: once `shared` refills (the
    // key would still be valid), the same press is accepted, not answered as a duplicate.
    for (let i = 0; i < 4; i++) expect((await storage.admitPress(admission({ rules: [own] }))).outcome).toBe('accepted');
    const later = { ...refused, now: T0 + 1_000, event: newEvent(T0 + TTL) };
    expect((await peer.admitPress(later)).outcome).toBe('accepted');
  });

  it('concurrent admissions of one key from two handles: one accepted, one event logged, every answer its id', async () => {
    const handles = get();
    const key = uid('press');
    const accountId = uid('acct');
    const rules = [bucket(100, 60_000)];
    const presses = Array.from({ length: 20 }, () => admission({ key, accountId, rules }));
    const results = await Promise.all(presses.map((press, i) => either(handles, i).admitPress(press)));
    expect(count(results, (r) => r.outcome === 'accepted')).toBe(1);
    const winner = results.find((r) => r.outcome === 'accepted')!;
    const id = winner.outcome === 'accepted' ? winner.event.id : '';
    expect(results.every((r) => (r.outcome === 'accepted' ? r.event.id : r.outcome === 'duplicate' ? r.eventId : null) === id)).toBe(true);
    expect(await handles.storage.readEvents(accountId, { after: 0, now: T0, limit: 50 })).toHaveLength(1);
    // Duplicates spent no tokens: 99 are left.
    expect(await takeUntilRefused(handles.peer, rules, T0)).toBe(99);
  });
}
