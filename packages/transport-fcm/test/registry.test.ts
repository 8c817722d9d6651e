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

  it('fcmRegistryFrom reads the tokens looked up together in one getFcmTokens call, each caller answered with its own', async () => {
    const tokens = new Map([
      ['phone', TOKENS.phone],
      ['other', TOKENS.other],
    ]);
    const calls: unknown[] = [];
    const store: FcmTokenStore = {
      async getFcmToken(deviceId) {
        calls.push(['getFcmToken', deviceId]);
        return tokens.get(deviceId) ?? null;
      },
      async getFcmTokens(deviceIds) {
        calls.push(['getFcmTokens', [...deviceIds]]);
        return new Map(deviceIds.filter((id) => tokens.has(id)).map((id) => [id, tokens.get(id)!]));
      },
      async removeFcmToken(deviceId, condition) {
        if (condition?.ifToken !== undefined && tokens.get(deviceId) !== condition.ifToken) return false;
        return tokens.delete(deviceId);
      },
    };
    const registry = fcmRegistryFrom(store);
    expect(await Promise.all([registry.tokenOf('phone'), registry.tokenOf('tablet'), registry.tokenOf('other')])).toEqual([TOKENS.phone, null, TOKENS.other]);
    expect(calls).toEqual([['getFcmTokens', ['phone', 'tablet', 'other']]]);
    // Nothing is kept: a token FCM refused is not answered to a later lookup.
    await registry.remove('phone', TOKENS.phone);
    expect(await registry.tokenOf('phone')).toBeNull();
    expect(calls).toEqual([
      ['getFcmTokens', ['phone', 'tablet', 'other']],
      ['getFcmTokens', ['phone']],
    ]);
  });

  it("fcmRegistryFrom rejects every lookup of a batch whose read fails with the store's error", async () => {
    const failure = new Error('store unavailable');
    const registry = fcmRegistryFrom({
      getFcmToken: async () => null,
      getFcmTokens: () => Promise.reject(failure),
      removeFcmToken: async () => false,
    });
    expect(await Promise.allSettled([registry.tokenOf('phone'), registry.tokenOf('other')])).toEqual([
      { status: 'rejected', reason: failure },
      { status: 'rejected', reason: failure },
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
