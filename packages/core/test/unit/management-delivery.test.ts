/**
 * An activity's delivery (`tokens` or `broadcast`) and `frequentUpdates`, as the management
 * API and the seed file take them (docs/contract/broadcast-channels.md#broadcast-activity-delivery).
 */
import { createManagementApi, InvalidArgumentError, loadSeed } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';

const setUp = async () => {
  const storage = createMemoryStorage();
  const management = createManagementApi(storage);
  await management.createAccount({ id: 'acme' });
  return { storage, management };
};

async function rejection(call: Promise<unknown>): Promise<Error> {
  return call.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error as Error,
  );
}

describe('activity delivery in the management API', () => {
  it('createActivity stores delivery and frequentUpdates, tokens and false unless given', async () => {
    const { storage, management } = await setUp();
    await management.createActivity({ account: 'acme', slug: 'build', template: 'progress' });
    expect(await storage.getActivity('acme', 'build')).toMatchObject({ delivery: 'tokens', frequentUpdates: false });
    await management.createActivity({ account: 'acme', slug: 'score', template: 'monitor', delivery: 'broadcast', frequentUpdates: true });
    expect(await storage.getActivity('acme', 'score')).toMatchObject({
      delivery: 'broadcast',
      frequentUpdates: true,
      channels: { production: null, sandbox: null },
    });
    // Changed on an existing activity; the channel it holds stays.
    await storage.setActivityChannel('acme', 'score', 'production', 'chan-1');
    await management.createActivity({ account: 'acme', slug: 'score', template: 'monitor', delivery: 'tokens' });
    expect(await storage.getActivity('acme', 'score')).toMatchObject({
      delivery: 'tokens',
      frequentUpdates: false,
      channels: { production: 'chan-1', sandbox: null },
    });
  });

  it('createActivityIfAbsent creates with them, and leaves an existing activity as it is', async () => {
    const { storage, management } = await setUp();
    expect(
      await management.createActivityIfAbsent({ account: 'acme', slug: 'build', template: 'progress', delivery: 'broadcast', frequentUpdates: true }),
    ).toBe(true);
    expect(await storage.getActivity('acme', 'build')).toMatchObject({ delivery: 'broadcast', frequentUpdates: true });
    expect(await management.createActivityIfAbsent({ account: 'acme', slug: 'build', template: 'progress' })).toBe(false);
    expect(await storage.getActivity('acme', 'build')).toMatchObject({ delivery: 'broadcast', frequentUpdates: true });
  });

  it('refuses any other delivery or a frequentUpdates that is not a boolean, and stores nothing', async () => {
    const { storage, management } = await setUp();
    const bad: unknown[] = [
      { delivery: 'Broadcast' },
      { delivery: 'channel' },
      { delivery: null },
      { delivery: 1 },
      { frequentUpdates: 'true' },
      { frequentUpdates: 1 },
      { frequentUpdates: null },
    ];
    for (const fields of bad) {
      for (const call of [management.createActivity, management.createActivityIfAbsent]) {
        const input = { account: 'acme', slug: 'build', template: 'progress', ...(fields as object) };
        const error = await rejection(call(input as never));
        expect(error).toBeInstanceOf(InvalidArgumentError);
        expect(error.message).toMatch(new RegExp(`^createActivity(IfAbsent)?: ${Object.keys(fields as object)[0]}: Invalid type`));
      }
    }
    expect(await storage.listActivities('acme')).toEqual([]);
  });
});

describe('activity delivery in the seed file', () => {
  it('takes delivery and frequent_updates per activity, with the same defaults', async () => {
    const { storage, management } = await setUp();
    await loadSeed(management, {
      accounts: [
        {
          id: 'acme',
          activities: [
            { slug: 'build', template: 'progress' },
            { slug: 'score', template: 'monitor', delivery: 'broadcast', frequent_updates: true },
            { slug: 'deploy', template: 'generic', delivery: 'tokens', frequent_updates: false },
          ],
        },
      ],
    });
    expect((await storage.listActivities('acme')).map(({ slug, delivery, frequentUpdates }) => ({ slug, delivery, frequentUpdates }))).toEqual([
      { slug: 'build', delivery: 'tokens', frequentUpdates: false },
      { slug: 'deploy', delivery: 'tokens', frequentUpdates: false },
      { slug: 'score', delivery: 'broadcast', frequentUpdates: true },
    ]);
  });

  it('refuses another delivery or a frequent_updates that is not a boolean, naming where', async () => {
    const { storage, management } = await setUp();
    const seed = (activity: object) => ({ accounts: [{ id: 'acme', activities: [{ slug: 'build', template: 'progress', ...activity }] }] });
    expect((await rejection(loadSeed(management, seed({ delivery: 'channels' })))).message).toMatch(
      /^seed file: accounts\.0\.activities\.0\.delivery: Invalid type/,
    );
    expect((await rejection(loadSeed(management, seed({ frequent_updates: 'yes' })))).message).toMatch(
      /^seed file: accounts\.0\.activities\.0\.frequent_updates: Invalid type/,
    );
    expect((await rejection(loadSeed(management, seed({ frequentUpdates: true })))).message).toMatch(
      /accounts\.0\.activities\.0\.frequentUpdates: Invalid key/,
    );
    expect(await storage.listActivities('acme')).toEqual([]);
  });
});
