/**
 * The management API's delivery listings (docs/contract/durable-delivery.md#durable-operator-listing):
 * their arguments, defaults and bounds, the account they are narrowed to, and the shape
 * they answer. The store is a small fake of the three calls they make: what it returns in
 * which order is the store's part, proved by the conformance concerns.
 */
import { createManagementApi, DEFAULT_DELIVERY_PAGE, InvalidArgumentError, MAX_DELIVERY_PAGE, type Storage, UnknownRecordError } from '@tilecast/core';
import type { DeadLetter, DeadLetterQuery, DeliveryJob, DeliveryJobQuery } from '@tilecast/core/storage';
import { describe, expect, it } from 'vitest';

const JOB: DeliveryJob = {
  accountId: 'acme',
  kind: 'widget',
  slug: 'lights',
  generation: 41,
  phase: 'changed',
  startAbove: null,
  cursor: 'phone-0499',
  dueAt: 1_000,
  createdAt: 900,
  leasedBy: 'instance-a',
  leaseUntil: 31_000,
  resumed: 1,
};

const LETTER: DeadLetter = {
  accountId: 'acme',
  kind: 'activity',
  slug: 'build',
  deviceId: 'phone-7',
  transport: 'apns',
  reason: 'refused: BadTopic',
  at: 5_000,
};

/** The store calls the listings make, recorded. */
function fakeStorage(accounts: string[]) {
  const queries: { jobs: DeliveryJobQuery[]; letters: DeadLetterQuery[] } = { jobs: [], letters: [] };
  const storage = {
    getAccount: async (id: string) => (accounts.includes(id) ? { id, tokenHash: 'h', subscription: 'active', activityQuota: 5 } : null),
    listDeliveryJobs: async (query: DeliveryJobQuery) => {
      queries.jobs.push(query);
      // A store may keep more than the contract's fields: they must not show.
      return [{ ...JOB, lockedRowVersion: 3 }];
    },
    listDeadLetters: async (query: DeadLetterQuery) => {
      queries.letters.push(query);
      return [{ ...LETTER, id: 17 }];
    },
  };
  return { storage: storage as unknown as Storage, queries };
}

/** The error a call rejects with. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('listDeliveries and listDeadLetters', () => {
  it(`ask the store for every account's, ${DEFAULT_DELIVERY_PAGE} unless told, and answer the operator's fields only`, async () => {
    const { storage, queries } = fakeStorage(['acme']);
    const management = createManagementApi(storage);
    expect(await management.listDeliveries()).toEqual([
      {
        accountId: 'acme',
        kind: 'widget',
        slug: 'lights',
        phase: 'changed',
        cursor: 'phone-0499',
        dueAt: 1_000,
        createdAt: 900,
        leasedBy: 'instance-a',
        leaseUntil: 31_000,
        resumed: 1,
      },
    ]);
    expect(await management.listDeadLetters({})).toEqual([LETTER]);
    expect(queries).toEqual({ jobs: [{ limit: 100 }], letters: [{ limit: 100 }] });
    expect(DEFAULT_DELIVERY_PAGE).toBe(100);
  });

  it('narrow to an account that exists, up to the limit given', async () => {
    const { storage, queries } = fakeStorage(['acme']);
    const management = createManagementApi(storage);
    await management.listDeliveries({ accountId: 'acme', limit: MAX_DELIVERY_PAGE });
    await management.listDeadLetters({ accountId: 'acme', limit: 1 });
    expect(queries).toEqual({ jobs: [{ accountId: 'acme', limit: 1_000 }], letters: [{ accountId: 'acme', limit: 1 }] });
  });

  it('refuse an account that does not exist (UnknownRecordError), without listing anything', async () => {
    const { storage, queries } = fakeStorage(['acme']);
    const management = createManagementApi(storage);
    for (const call of [management.listDeliveries({ accountId: 'acne' }), management.listDeadLetters({ accountId: 'acne' })]) {
      expect(await rejection(call)).toMatchObject({ name: 'UnknownRecordError', record: 'account', id: 'acne', message: 'no account "acne"' });
    }
    expect(queries).toEqual({ jobs: [], letters: [] });
  });

  it.each([
    [{ limit: 0 }, 'limit: Invalid value: Expected >=1 but received 0'],
    [{ limit: MAX_DELIVERY_PAGE + 1 }, 'limit: Invalid value: Expected <=1000 but received 1001'],
    [{ limit: 2.5 }, 'limit: Invalid integer: Received 2.5'],
    [{ limit: '10' }, 'limit: Invalid type: Expected number but received "10"'],
    [{ accountId: 'bad id' }, 'accountId: must be 1-64 characters of A-Z a-z 0-9 . _ ~ - starting with a letter or digit'],
    [{ account: 'acme' }, 'account: Invalid key: Expected never but received "account"'],
  ])('refuse %j as an invalid argument naming the field', async (query, problem) => {
    const { storage, queries } = fakeStorage(['acme']);
    const management = createManagementApi(storage);
    for (const [name, call] of [
      ['listDeliveries', management.listDeliveries(query as never)],
      ['listDeadLetters', management.listDeadLetters(query as never)],
    ] as const) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(InvalidArgumentError);
      expect(error).not.toBeInstanceOf(UnknownRecordError);
      expect((error as Error).message).toBe(`${name}: ${problem}`);
    }
    expect(queries).toEqual({ jobs: [], letters: [] });
  });
});
