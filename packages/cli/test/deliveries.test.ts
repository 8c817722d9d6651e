/**
 * `tilecast deliveries` in process, on a fake of the three store calls its management
 * listings make: what it prints (table and `--json`), the query it asks for, and its
 * errors as the CLI reports them. What the store returns in which order is the store's
 * part (conformance concerns); the command against PostgreSQL is in commands.test.ts.
 */
import { createManagementApi, type Storage } from '@tilecast/core';
import type { DeadLetter, DeadLetterQuery, DeliveryJob, DeliveryJobQuery } from '@tilecast/core/storage';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CommandInput } from '../src/command.js';
import { deadLetterText, deliveriesCommand, deliveryText, span } from '../src/commands/deliveries.js';
import type { Database } from '../src/database.js';
import { reportOf } from '../src/errors.js';

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

const job = (slug: string, fields: Partial<DeliveryJob>): DeliveryJob => ({
  accountId: 'acme',
  kind: 'widget',
  slug,
  generation: 7,
  phase: 'changed',
  startAbove: null,
  cursor: '',
  dueAt: NOW - 95_000,
  createdAt: NOW - 95_000,
  leasedBy: null,
  leaseUntil: 0,
  resumed: 0,
  ...fields,
});

const JOBS: DeliveryJob[] = [
  job('build', {
    kind: 'activity',
    phase: 'end',
    cursor: 'phone-0499',
    createdAt: NOW - 3_723_000,
    dueAt: NOW - 3_723_000,
    leasedBy: 'web-2',
    leaseUntil: NOW - 5_000,
    resumed: 1,
  }),
  job('lights', { cursor: 'a', leasedBy: 'web-1', leaseUntil: NOW + 20_000 }),
  job('boiler', { dueAt: NOW + 1_500, createdAt: NOW - 500 }),
  { ...job('mail', { createdAt: NOW - 400 }), accountId: 'shop' },
];

const LETTERS: DeadLetter[] = [
  { accountId: 'acme', kind: 'activity', slug: 'build', deviceId: 'phone-7', transport: 'apns', reason: 'refused: BadTopic', at: NOW - 42_000 },
  {
    accountId: 'shop',
    kind: 'widget',
    slug: 'mail',
    deviceId: 'shop-phone',
    transport: 'apns',
    reason: 'failed: socket hang up\nat line 2',
    at: NOW - 90_061_000,
  },
];

/** The store calls of the listings, answering from the lists above as a store would (account, then limit). */
function fakeDatabase() {
  const queries: (DeliveryJobQuery | DeadLetterQuery)[] = [];
  let connected = 0;
  const pick = <T extends { accountId: string }>(rows: T[], query: { accountId?: string; limit: number }) => {
    queries.push(query);
    return rows.filter((row) => query.accountId === undefined || row.accountId === query.accountId).slice(0, query.limit);
  };
  const storage = {
    getAccount: async (id: string) => (['acme', 'shop'].includes(id) ? { id, tokenHash: 'h', subscription: 'active', activityQuota: 5 } : null),
    listDeliveryJobs: async (query: DeliveryJobQuery) => pick(JOBS, query),
    listDeadLetters: async (query: DeadLetterQuery) => pick(LETTERS, query),
  } as unknown as Storage;
  const database: Database = {
    settings: {
      url: 'postgres://127.0.0.1:1/x',
      where: '127.0.0.1:1/x',
      schema: 'tilecast',
      deadlines: { connectTimeoutMs: 1, acquireTimeoutMs: 1, statementTimeoutMs: 1 },
    },
    management: async () => {
      connected++;
      return createManagementApi(storage);
    },
    migrate: () => Promise.reject(new Error('deliveries never migrates')),
    close: async () => {},
  };
  return { database, queries, connected: () => connected };
}

const input = (options: Record<string, string> = {}): CommandInput => ({ args: {}, options });

/** How the CLI would end on the error the command throws: its exit code and line. */
async function failure(run: Promise<unknown>): Promise<{ message: string; exitCode: number }> {
  return run.then(
    () => expect.fail('expected a failure'),
    (error: unknown) => reportOf(error, '127.0.0.1:1/x'),
  );
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(NOW);
});
afterEach(() => {
  vi.useRealTimers();
});

describe('tilecast deliveries', () => {
  it('prints the pending jobs, oldest first, with phase, progress, due time, age, lease holder and resumes', async () => {
    const { database, queries } = fakeDatabase();
    const { text } = await deliveriesCommand.run(input(), database);
    expect(text).toBe(
      [
        'RESOURCE             PHASE    PROGRESS          DUE    AGE     LEASE                  RESUMED',
        'activity acme/build  end      after phone-0499  now    1h 02m  web-2 (lapsed 5s ago)  1',
        'widget acme/lights   changed  after a           now    1m 35s  web-1 (20s left)       0',
        'widget acme/boiler   changed  not started       in 1s  500ms   -                      0',
        'widget shop/mail     changed  not started       now    400ms   -                      0',
      ].join('\n'),
    );
    expect(queries).toEqual([{ limit: 100 }]);
  });

  it('--json: every field, snake_case, times in ISO 8601 UTC, no cursor or lease as null', async () => {
    const { database } = fakeDatabase();
    const { json } = await deliveriesCommand.run(input({ account: 'acme', limit: '2' }), database);
    expect(json).toEqual({
      deliveries: [
        {
          account: 'acme',
          kind: 'activity',
          slug: 'build',
          phase: 'end',
          cursor: 'phone-0499',
          due_at: '2026-11-27T10:57:57Z',
          created_at: '2026-11-27T10:57:57Z',
          leased_by: 'web-2',
          lease_until: '2026-11-27T11:59:55Z',
          resumed: 1,
        },
        {
          account: 'acme',
          kind: 'widget',
          slug: 'lights',
          phase: 'changed',
          cursor: 'a',
          due_at: '2026-11-27T11:58:25Z',
          created_at: '2026-11-27T11:58:25Z',
          leased_by: 'web-1',
          lease_until: '2026-11-27T12:00:20Z',
          resumed: 0,
        },
      ],
    });
  });

  it('--account narrows to an account, --limit bounds the rows; a full page says there may be more', async () => {
    const { database, queries } = fakeDatabase();
    const { text } = await deliveriesCommand.run(input({ account: 'acme', limit: '2' }), database);
    expect(queries).toEqual([{ accountId: 'acme', limit: 2 }]);
    expect(text.split('\n')).toHaveLength(4);
    expect(text).toMatch(/\nThe oldest 2 shown; there may be more \(--limit up to 1000 shows more, --account narrows\)\.$/);
    const shop = await deliveriesCommand.run(input({ account: 'shop' }), database);
    expect(shop.text).not.toContain('there may be more');
    expect(shop.text.split('\n')).toHaveLength(2);
  });

  it('says when nothing is pending', () => {
    expect(deliveryText([], { now: NOW, limit: 100, account: undefined })).toBe('No pending deliveries.');
    expect(deliveryText([], { now: NOW, limit: 100, account: 'acme' })).toBe('No pending deliveries for account acme.');
    expect(deadLetterText([], { now: NOW, limit: 100, account: undefined })).toBe('No dead letters in the last 7 days.');
  });

  it('--failed prints the dead letters, newest first as the store gives them, the reason last and on one line', async () => {
    const { database, queries } = fakeDatabase();
    const { text, json } = await deliveriesCommand.run(input({ failed: 'true' }), database);
    expect(text).toBe(
      [
        'RESOURCE             DEVICE      TRANSPORT  TIME                               REASON',
        'activity acme/build  phone-7     apns       2026-11-27T11:59:18Z (42s ago)     refused: BadTopic',
        'widget shop/mail     shop-phone  apns       2026-11-26T10:58:59Z (1d 01h ago)  failed: socket hang up at line 2',
      ].join('\n'),
    );
    expect(queries).toEqual([{ limit: 100 }]);
    expect(json).toEqual({
      dead_letters: [
        { account: 'acme', kind: 'activity', slug: 'build', device: 'phone-7', transport: 'apns', reason: 'refused: BadTopic', at: '2026-11-27T11:59:18Z' },
        {
          account: 'shop',
          kind: 'widget',
          slug: 'mail',
          device: 'shop-phone',
          transport: 'apns',
          reason: 'failed: socket hang up\nat line 2',
          at: '2026-11-26T10:58:59Z',
        },
      ],
    });
    const none = await deliveriesCommand.run(input({ failed: 'true', account: 'acme', limit: '1000' }), database);
    expect(queries.at(-1)).toEqual({ accountId: 'acme', limit: 1000 });
    expect(none.text.split('\n')).toHaveLength(2);
  });

  it('an account that does not exist is exit 1; a --limit out of range exit 2, in the CLI words', async () => {
    const { database, queries } = fakeDatabase();
    expect(await failure(deliveriesCommand.run(input({ account: 'nobody' }), database))).toEqual({ message: 'no account "nobody"', exitCode: 1 });
    expect(await failure(deliveriesCommand.run(input({ failed: 'true', account: 'nobody' }), database))).toEqual({
      message: 'no account "nobody"',
      exitCode: 1,
    });
    expect(await failure(deliveriesCommand.run(input({ limit: '1001' }), database))).toEqual({
      message: 'invalid --limit 1001: Invalid value: Expected <=1000 but received 1001',
      exitCode: 2,
    });
    expect(await failure(deliveriesCommand.run(input({ limit: '0', failed: 'true' }), database))).toEqual({
      message: 'invalid --limit 0: Invalid value: Expected >=1 but received 0',
      exitCode: 2,
    });
    expect(await failure(deliveriesCommand.run(input({ account: 'bad id' }), database))).toMatchObject({
      message: expect.stringMatching(/^invalid --account "bad id": must be 1-64 characters/),
      exitCode: 2,
    });
    expect(queries).toEqual([]);
  });

  it('a --limit that is not a whole number is refused before connecting', async () => {
    const { database, connected } = fakeDatabase();
    expect(await failure(deliveriesCommand.run(input({ limit: 'many' }), database))).toEqual({
      message: '--limit must be a whole number, got "many"',
      exitCode: 2,
    });
    expect(connected()).toBe(0);
  });

  it('writes durations for people', () => {
    expect([0, 850, 1_000, 59_999, 60_000, 185_000, 3_600_000, 7_620_000, 86_400_000, 273_600_000].map(span)).toEqual([
      '0ms',
      '850ms',
      '1s',
      '59s',
      '1m 00s',
      '3m 05s',
      '1h 00m',
      '2h 07m',
      '1d 00h',
      '3d 04h',
    ]);
  });
});
