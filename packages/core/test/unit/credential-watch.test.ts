import { describe, expect, it } from 'vitest';
import { createMemoryStorage } from '@tilecast/storage-memory';
import { createCredentialWatch, DEFAULT_CREDENTIAL_CHECK_MS } from '../../src/sse/credential-watch.js';
import { silentLogger } from '../../src/logger.js';
import { createManualClock } from '../../../../test/support/manual-clock.js';

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function setup() {
  const clock = createManualClock();
  const storage = createMemoryStorage();
  await storage.upsertAccount({ id: 'acme', tokenHash: 'a1', subscription: 'active', activityQuota: 5 });
  await storage.upsertAccount({ id: 'other', tokenHash: 'o1', subscription: 'active', activityQuota: 5 });
  await storage.upsertDevice({ id: 'phone', accountId: 'acme', tokenHash: 'd1' });
  const ended: string[] = [];
  const account = (accountId: string, tokenHash: string) => ({ accountId, tokenHash, credentialRevoked: () => void ended.push(`${accountId}:${tokenHash}`) });
  const device = (deviceId: string, tokenHash: string) => ({ deviceId, tokenHash, credentialRevoked: () => void ended.push(`${deviceId}:${tokenHash}`) });
  let calls = 0;
  const check = storage.checkCredentials.bind(storage);
  storage.checkCredentials = (query) => {
    calls += 1;
    return check(query);
  };
  const watch = createCredentialWatch(storage, clock, silentLogger, DEFAULT_CREDENTIAL_CHECK_MS);
  return { clock, storage, ended, account, device, watch, calls: () => calls };
}

describe('credential watch', () => {
  it('checks every watched stream in one store call per interval and ends only those whose credential changed', async () => {
    const { clock, storage, ended, account, device, watch, calls } = await setup();
    for (const stream of [account('acme', 'a1'), account('acme', 'a1'), account('other', 'o1')]) watch.watchAccount(stream);
    watch.watchDevice(device('phone', 'd1'));
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(DEFAULT_CREDENTIAL_CHECK_MS);
    await settle();
    expect(calls()).toBe(1);
    expect(ended).toEqual([]);

    await storage.setAccountTokenHash('acme', 'a2');
    await storage.upsertDevice({ id: 'phone', accountId: 'acme', tokenHash: 'd2' });
    clock.advance(DEFAULT_CREDENTIAL_CHECK_MS);
    await settle();
    expect(calls()).toBe(2);
    expect(ended).toEqual(['acme:a1', 'acme:a1', 'phone:d1']);
    clock.advance(DEFAULT_CREDENTIAL_CHECK_MS);
    await settle();
    expect(ended).toHaveLength(3); // ended once; `other` keeps running
    watch.close();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('ends nothing while the store fails, and ends the stream once a check succeeds', async () => {
    const { clock, storage, ended, account, watch } = await setup();
    watch.watchAccount(account('acme', 'a1'));
    await storage.updateAccount('acme', { subscription: 'none' });
    const check = storage.checkCredentials;
    storage.checkCredentials = async () => {
      throw new Error('database is down');
    };
    for (let i = 0; i < 3; i++) {
      clock.advance(DEFAULT_CREDENTIAL_CHECK_MS);
      await settle();
    }
    expect(ended).toEqual([]);
    storage.checkCredentials = check;
    clock.advance(DEFAULT_CREDENTIAL_CHECK_MS);
    await settle();
    expect(ended).toEqual(['acme:a1']);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps no timer without streams; an unwatched stream is not checked; close stops the timer', async () => {
    const { clock, ended, account, device, watch, calls } = await setup();
    expect(clock.pendingTimers()).toBe(0);
    const stream = account('acme', 'stale');
    const phone = device('phone', 'stale');
    watch.watchAccount(stream);
    watch.watchDevice(phone);
    watch.unwatch(stream);
    watch.unwatch(phone);
    clock.advance(DEFAULT_CREDENTIAL_CHECK_MS);
    await settle();
    expect(ended).toEqual([]);
    expect(clock.pendingTimers()).toBe(0);
    watch.watchAccount(account('acme', 'a1'));
    watch.close();
    expect(clock.pendingTimers()).toBe(0);
    expect(calls()).toBe(0); // the streams had gone when the timer fired: no store call
  });
});
