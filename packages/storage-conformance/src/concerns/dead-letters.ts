import { DEAD_LETTER_TTL_MS, type DeadLetter, type Storage } from '@tilecast/core/storage';
import { expect, it } from 'vitest';
import { type GetHandles, T0, uid } from '../harness.js';

/**
 * The purge test lives far below `T0` (every other concern's times) and above the purge
 * concern's, and drains what would expire at its times first: on a shared database it
 * only ever counts, and purges, its own dead letters.
 */
const D0 = 100_000_000;

/** After every other time of the suite: the newest dead letters of the store. */
const LATE = T0 + 1_000_000_000_000;

let sequence = 0;

function letter(accountId: string, at: number, overrides: Partial<DeadLetter> = {}): DeadLetter {
  sequence += 1;
  return {
    accountId,
    kind: 'widget',
    slug: uid('wid'),
    deviceId: uid('dev'),
    transport: 'apns',
    reason: `refused: BadTopic (${sequence})`,
    at,
    ...overrides,
  };
}

async function drain(storage: Storage, now: number): Promise<void> {
  for (let i = 0; i < 1_000 && (await storage.purgeExpired({ now, batch: 10_000 })) > 0; i++);
}

/** Dead letters (docs/contract/durable-delivery.md#durable-dead-letters). */
export function deadLetterTests(get: GetHandles): void {
  it('keep resource, device, transport, reason and time, listed newest first by account, up to limit, on every handle', async () => {
    const { storage, peer } = get();
    const [a, b] = [uid('acct'), uid('acct')];
    const oldest = letter(a, T0 + 1, { kind: 'activity', transport: 'stream', reason: 'dropped: retries used up' });
    const newest = letter(a, T0 + 3);
    const middle = letter(a, T0 + 2, { kind: 'activity' });
    const other = letter(b, T0 + 4);
    await storage.addDeadLetters([oldest, newest]);
    await peer.addDeadLetters([middle, other]);

    expect(await peer.listDeadLetters({ accountId: a, limit: 10 })).toEqual([newest, middle, oldest]);
    expect(await storage.listDeadLetters({ accountId: a, limit: 2 })).toEqual([newest, middle]);
    expect(await storage.listDeadLetters({ accountId: a, limit: 0 })).toEqual([]);
    expect(await storage.listDeadLetters({ accountId: b, limit: 10 })).toEqual([other]);
    expect(await storage.listDeadLetters({ accountId: uid('acct'), limit: 10 })).toEqual([]);
  });

  it("without an account: every account's, newest first", async () => {
    const { storage, peer } = get();
    const [a, b] = [uid('acct'), uid('acct')];
    const letters = [letter(a, LATE + 1), letter(b, LATE + 3), letter(a, LATE + 2)];
    await storage.addDeadLetters(letters);
    expect(await peer.listDeadLetters({ limit: 3 })).toEqual([letters[1], letters[2], letters[0]]);
    expect(await peer.listDeadLetters({ limit: 1 })).toEqual([letters[1]]);
  });

  it('adding none writes nothing; the letters given and listed are copies', async () => {
    const { storage } = get();
    const account = uid('acct');
    await storage.addDeadLetters([]);
    expect(await storage.listDeadLetters({ accountId: account, limit: 10 })).toEqual([]);
    const given = letter(account, T0);
    const kept = { ...given };
    await storage.addDeadLetters([given]);
    given.reason = 'scribbled';
    const [listed] = await storage.listDeadLetters({ accountId: account, limit: 10 });
    expect(listed).toEqual(kept);
    listed!.deviceId = 'scribbled';
    expect(await storage.listDeadLetters({ accountId: account, limit: 10 })).toEqual([kept]);
  });

  it('purgeExpired removes them DEAD_LETTER_TTL_MS (7 days) after their time, at most batch per call, counted', async () => {
    const { storage, peer } = get();
    expect(DEAD_LETTER_TTL_MS).toBe(7 * 24 * 60 * 60 * 1000);
    const horizon = D0 + 1_000 + DEAD_LETTER_TTL_MS;
    await drain(storage, horizon);
    const account = uid('acct');
    const later = letter(account, D0 + 1_000);
    // Added out of time order: a purge must not stop at the first one still kept.
    await storage.addDeadLetters([later, letter(account, D0), letter(account, D0)]);
    await peer.addDeadLetters([letter(account, D0)]);

    expect(await storage.purgeExpired({ now: D0 + DEAD_LETTER_TTL_MS - 1, batch: 100 })).toBe(0);
    expect(await storage.purgeExpired({ now: D0 + DEAD_LETTER_TTL_MS, batch: 2 })).toBe(2);
    expect(await peer.purgeExpired({ now: D0 + DEAD_LETTER_TTL_MS, batch: 2 })).toBe(1);
    expect(await storage.purgeExpired({ now: D0 + DEAD_LETTER_TTL_MS, batch: 2 })).toBe(0);
    expect(await storage.listDeadLetters({ accountId: account, limit: 10 })).toEqual([later]);
    expect(await storage.purgeExpired({ now: horizon, batch: 100 })).toBe(1);
    expect(await peer.listDeadLetters({ accountId: account, limit: 10 })).toEqual([]);
  });
}
