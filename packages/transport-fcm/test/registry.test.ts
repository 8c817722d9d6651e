import { createMemoryFcmRegistry, fcmRegistryFrom, type FcmTokenStore } from '@tilecast/transport-fcm';
import { describe, expect, it } from 'vitest';
import { TOKENS } from './support.js';

describe('FcmRegistry', () => {
  it("fcmRegistryFrom reads a store's token and removes it only while it is still that token", async () => {
    const tokens = new Map([['phone', TOKENS.phone]]);
    const calls: unknown[] = [];
    const store: FcmTokenStore = {
      async getFcmToken(deviceId) {
        return tokens.get(deviceId) ?? null;
      },
      async removeFcmToken(deviceId, condition) {
        calls.push([deviceId, condition]);
        if (condition?.ifToken !== undefined && tokens.get(deviceId) !== condition.ifToken) return false;
        return tokens.delete(deviceId);
      },
    };
    const registry = fcmRegistryFrom(store);
    expect(await registry.tokenOf('phone')).toBe(TOKENS.phone);
    expect(await registry.tokenOf('tablet')).toBeNull();
    await registry.remove('phone', TOKENS.other);
    expect(await registry.tokenOf('phone')).toBe(TOKENS.phone);
    await registry.remove('phone', TOKENS.phone);
    expect(await registry.tokenOf('phone')).toBeNull();
    expect(calls).toEqual([
      ['phone', { ifToken: TOKENS.other }],
      ['phone', { ifToken: TOKENS.phone }],
    ]);
  });

  it('the memory registry keeps one token per device, replaced by a new one, and forgets a removed device', async () => {
    const registry = createMemoryFcmRegistry();
    registry.register('phone', TOKENS.phone);
    registry.register('phone', TOKENS.fresh);
    expect(await registry.tokenOf('phone')).toBe(TOKENS.fresh);
    await registry.remove('phone', TOKENS.phone);
    expect(await registry.tokenOf('phone')).toBe(TOKENS.fresh);
    registry.removeDevice('phone');
    expect(await registry.tokenOf('phone')).toBeNull();
  });
});
