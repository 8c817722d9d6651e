import { expect, it } from 'vitest';
import { type GetHandles, newAccount, newDevice, randomHash, uid } from '../harness.js';

/** `checkCredentials`: what ends open streams whose account token, subscription or device changed. */
export function credentialCheckTests(get: GetHandles): void {
  it('unchanged credentials hold; unknown ids, other hashes and an inactive subscription do not', async () => {
    const { storage } = get();
    const account = await newAccount(storage);
    const lapsed = await newAccount(storage, { subscription: 'none' });
    const device = await newDevice(storage, account.id);
    const answer = await storage.checkCredentials({
      accounts: [
        { accountId: account.id, tokenHash: account.tokenHash },
        { accountId: account.id, tokenHash: randomHash() },
        { accountId: uid('missing'), tokenHash: account.tokenHash },
        { accountId: lapsed.id, tokenHash: lapsed.tokenHash },
        { accountId: account.id, tokenHash: account.tokenHash },
      ],
      devices: [
        { deviceId: device.id, tokenHash: device.tokenHash },
        { deviceId: device.id, tokenHash: account.tokenHash },
        { deviceId: uid('missing'), tokenHash: device.tokenHash },
        { deviceId: device.id.toUpperCase(), tokenHash: device.tokenHash },
      ],
    });
    expect(answer).toEqual({ accounts: [true, false, false, false, true], devices: [true, false, false, false] });
  });

  it('answers empty lists with empty lists', async () => {
    expect(await get().storage.checkCredentials({ accounts: [], devices: [] })).toEqual({ accounts: [], devices: [] });
  });

  it('a rotated token, an ended subscription, a deleted account, a removed device and a new device token are seen at once through the other handle', async () => {
    const { storage, peer } = get();
    const [rotated, ended, deleted, kept] = await Promise.all([newAccount(storage), newAccount(storage), newAccount(storage), newAccount(storage)]);
    const [removed, retokened, ofDeleted, keptDevice] = await Promise.all([
      newDevice(storage, kept.id),
      newDevice(storage, kept.id),
      newDevice(storage, deleted.id),
      newDevice(storage, kept.id),
    ]);
    const query = {
      accounts: [rotated, ended, deleted, kept].map((a) => ({ accountId: a.id, tokenHash: a.tokenHash })),
      devices: [removed, retokened, ofDeleted, keptDevice].map((d) => ({ deviceId: d.id, tokenHash: d.tokenHash })),
    };
    expect(await peer.checkCredentials(query)).toEqual({ accounts: [true, true, true, true], devices: [true, true, true, true] });

    await storage.setAccountTokenHash(rotated.id, randomHash());
    await storage.updateAccount(ended.id, { subscription: 'none' });
    await storage.deleteAccount(deleted.id);
    await storage.deleteDevice(removed.id);
    await storage.upsertDevice({ ...retokened, tokenHash: randomHash() });

    const expected = { accounts: [false, false, false, true], devices: [false, false, false, true] };
    expect(await peer.checkCredentials(query)).toEqual(expected);
    expect(await storage.checkCredentials(query)).toEqual(expected);
  });

  it('a subscription made active again holds again (the check reads the current state, it remembers nothing)', async () => {
    const { storage, peer } = get();
    const account = await newAccount(storage, { subscription: 'none' });
    const query = { accounts: [{ accountId: account.id, tokenHash: account.tokenHash }], devices: [] };
    expect((await peer.checkCredentials(query)).accounts).toEqual([false]);
    await storage.updateAccount(account.id, { subscription: 'active' });
    expect((await peer.checkCredentials(query)).accounts).toEqual([true]);
  });
}
