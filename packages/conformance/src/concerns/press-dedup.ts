import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import { type GetHandles, T0, count, either, uid } from '../harness.js';

const TTL = 5_000;

export function pressDedupTests(get: GetHandles): void {
  it('the first press of a key is created; later ones before expiry return the first event id', async () => {
    const { storage } = get();
    const key = uid('press');
    const first = randomUUID();
    expect(await storage.recordPress(key, first, T0, T0 + TTL)).toEqual({ created: true, eventId: first });
    expect(await storage.recordPress(key, randomUUID(), T0 + 1, T0 + 1 + TTL)).toEqual({ created: false, eventId: first });
    expect(await storage.recordPress(key, randomUUID(), T0 + TTL - 1, T0 + 2 * TTL)).toEqual({ created: false, eventId: first });
  });

  it('different keys are independent', async () => {
    const { storage } = get();
    const stem = uid('owner');
    const [a, b] = [randomUUID(), randomUUID()];
    expect(await storage.recordPress(`${stem}/panel/r1`, a, T0, T0 + TTL)).toEqual({ created: true, eventId: a });
    expect(await storage.recordPress(`${stem}/panel/r2`, b, T0, T0 + TTL)).toEqual({ created: true, eventId: b });
    expect(await storage.recordPress(`${stem}/panel/R1`, b, T0, T0 + TTL)).toEqual({ created: true, eventId: b });
  });

  it('once expired (expiresAt <= now) the key can be used again, and then de-duplicates again', async () => {
    const { storage } = get();
    const key = uid('press');
    const [first, second] = [randomUUID(), randomUUID()];
    await storage.recordPress(key, first, T0, T0 + TTL);
    expect(await storage.recordPress(key, second, T0 + TTL, T0 + 2 * TTL)).toEqual({ created: true, eventId: second });
    expect(await storage.recordPress(key, randomUUID(), T0 + TTL + 1, T0 + 3 * TTL)).toEqual({ created: false, eventId: second });
  });

  it('concurrent presses of one key from two handles: exactly one created, everyone gets its event id', async () => {
    const handles = get();
    const key = uid('press');
    const ids = Array.from({ length: 30 }, () => randomUUID());
    const results = await Promise.all(ids.map((id, i) => either(handles, i).recordPress(key, id, T0, T0 + TTL)));
    expect(count(results, (r) => r.created)).toBe(1);
    const winner = results.find((r) => r.created)!.eventId;
    expect(ids).toContain(winner);
    expect(results.every((r) => r.eventId === winner)).toBe(true);
  });
}
