/**
 * The management API's errors as typed values, and its account listing: what the
 * `tilecast` CLI maps to exit codes (a missing record is not a bad input).
 */
import { createManagementApi, InvalidArgumentError, MAX_ACCOUNT_PAGE, OwnDeviceShareError, UnknownRecordError } from '@tilecast/core';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { describe, expect, it } from 'vitest';

const setUp = async () => {
  const management = createManagementApi(createMemoryStorage());
  await management.createAccount({ id: 'acme' });
  await management.createAccount({ id: 'guest' });
  await management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
  await management.registerDevice({ id: 'guest-phone', account: 'guest' });
  return management;
};

/** The error a call rejects with. */
async function rejection(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('UnknownRecordError', () => {
  it('names the missing account, for every call that needs one', async () => {
    const management = await setUp();
    const calls = [
      management.rotateToken('nobody'),
      management.setSubscription('nobody', 'none'),
      management.setActivityQuota('nobody', 1),
      management.createActivity({ account: 'nobody', slug: 'a', template: 'progress' }),
      management.createActivityIfAbsent({ account: 'nobody', slug: 'a', template: 'progress' }),
      management.createWidget({ account: 'nobody', slug: 'w', template: 'gauge' }),
      management.createWidgetIfAbsent({ account: 'nobody', slug: 'w', template: 'gauge' }),
      management.registerDevice({ id: 'p', account: 'nobody' }),
      management.registerDeviceIfAbsent({ id: 'p', account: 'nobody' }),
    ];
    for (const call of calls) {
      const error = await rejection(call);
      expect(error).toBeInstanceOf(UnknownRecordError);
      expect(error).toBeInstanceOf(InvalidArgumentError); // code catching the old class keeps working
      expect(error).toMatchObject({ record: 'account', id: 'nobody', message: 'no account "nobody"', name: 'UnknownRecordError' });
    }
  });

  it('shareWidget says whether the widget or the device is missing', async () => {
    const management = await setUp();
    expect(await rejection(management.shareWidget('acme', 'nope', 'guest-phone'))).toMatchObject({
      record: 'widget',
      id: 'acme/nope',
      message: 'no widget "acme/nope"',
    });
    expect(await rejection(management.shareWidget('nobody', 'lights', 'guest-phone'))).toMatchObject({ record: 'widget', id: 'nobody/lights' });
    expect(await rejection(management.shareWidget('acme', 'lights', 'ghost'))).toMatchObject({ record: 'device', id: 'ghost', message: 'no device "ghost"' });
    await management.shareWidget('acme', 'lights', 'guest-phone');
  });

  it('an input that is invalid stays a plain InvalidArgumentError, its message naming the faulty value', async () => {
    const management = await setUp();
    const error = await rejection(management.createAccount({ id: 'bad id', activityQuota: 10_001 }));
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).not.toBeInstanceOf(UnknownRecordError);
    expect((error as Error).message).toMatch(
      /^createAccount: id: must be 1-64 characters .*; activityQuota: Invalid value: Expected <=10000 but received 10001$/,
    );
    expect(((await rejection(management.setActivityQuota('acme', -1))) as Error).message).toBe('setActivityQuota: Invalid value: Expected >=0 but received -1');
  });
});

describe('listAccounts', () => {
  it('pages through the accounts sorted by id, without their tokens', async () => {
    const management = createManagementApi(createMemoryStorage());
    for (const id of ['b', 'a', 'C', 'a.1']) await management.createAccount({ id, subscription: id === 'C' ? 'none' : 'active', activityQuota: 2 });
    expect(await management.listAccounts()).toEqual([
      { id: 'C', subscription: 'none', activityQuota: 2 },
      { id: 'a', subscription: 'active', activityQuota: 2 },
      { id: 'a.1', subscription: 'active', activityQuota: 2 },
      { id: 'b', subscription: 'active', activityQuota: 2 },
    ]);
    expect((await management.listAccounts({ after: 'a', limit: 1 })).map((a) => a.id)).toEqual(['a.1']);
    expect(await management.listAccounts({ after: 'b' })).toEqual([]);
  });

  it('returns at most MAX_ACCOUNT_PAGE accounts, and refuses a limit outside 1..MAX_ACCOUNT_PAGE', async () => {
    const management = createManagementApi(createMemoryStorage());
    for (let i = 0; i < MAX_ACCOUNT_PAGE + 1; i += 1) await management.createAccount({ id: `a${String(i).padStart(4, '0')}` });
    const first = await management.listAccounts();
    expect(first).toHaveLength(MAX_ACCOUNT_PAGE);
    expect(await management.listAccounts({ after: first[first.length - 1]!.id })).toEqual([
      { id: `a${String(MAX_ACCOUNT_PAGE).padStart(4, '0')}`, subscription: 'active', activityQuota: 5 },
    ]);
    for (const limit of [0, MAX_ACCOUNT_PAGE + 1, 1.5]) {
      expect(await rejection(management.listAccounts({ limit }))).toBeInstanceOf(InvalidArgumentError);
    }
  });
});

describe('shares with devices of other accounts only', () => {
  it("shareWidget refuses a device of the widget's own account with OwnDeviceShareError, and shares nothing", async () => {
    const management = await setUp();
    await management.registerDevice({ id: 'acme-phone', account: 'acme' });
    const error = await rejection(management.shareWidget('acme', 'lights', 'acme-phone'));
    expect(error).toBeInstanceOf(OwnDeviceShareError);
    expect(error).toBeInstanceOf(InvalidArgumentError);
    expect(error).not.toBeInstanceOf(UnknownRecordError);
    expect(error).toMatchObject({
      name: 'OwnDeviceShareError',
      accountId: 'acme',
      slug: 'lights',
      deviceId: 'acme-phone',
      message: 'device "acme-phone" belongs to account "acme": it shows widget "acme/lights" already',
    });
  });

  it('registerDevice under another account moves the device: the shares it had go', async () => {
    const storage = createMemoryStorage();
    const management = createManagementApi(storage);
    await management.createAccount({ id: 'acme' });
    await management.createAccount({ id: 'guest' });
    await management.createWidget({ account: 'acme', slug: 'lights', template: 'switchboard' });
    await management.registerDevice({ id: 'guest-phone', account: 'guest' });
    await management.shareWidget('acme', 'lights', 'guest-phone');
    await management.registerDevice({ id: 'guest-phone', account: 'acme' });
    expect(await storage.listWidgetShares('acme', 'lights')).toEqual([]);
    expect(await storage.listWidgetsSharedWith('guest-phone')).toEqual([]);
  });
});
